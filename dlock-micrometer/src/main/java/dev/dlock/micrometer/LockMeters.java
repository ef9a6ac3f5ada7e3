package dev.dlock.micrometer;

import static dev.dlock.micrometer.DlockMetrics.CAUSES;
import static dev.dlock.micrometer.DlockMetrics.ENDINGS;
import static dev.dlock.micrometer.DlockMetrics.KINDS;
import static dev.dlock.micrometer.DlockMetrics.OUTCOMES;

import dev.dlock.LockObserver.AcquireOutcome;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.LockObserver.Kind;
import dev.dlock.LockObserver.LossCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The per-lock meters of one value of the lock tag (or of none), each registered on its first
 * use: after that, finding it is an array read.
 */
final class LockMeters {
    private final MeterRegistry registry;
    private final Tags base;
    private final boolean histograms;
    private final AtomicReferenceArray<Timer> waits = new AtomicReferenceArray<>(KINDS.length * OUTCOMES.length);
    private final AtomicReferenceArray<Timer> holds = new AtomicReferenceArray<>(KINDS.length * ENDINGS.length);
    private final AtomicReferenceArray<Counter> losses = new AtomicReferenceArray<>(KINDS.length * CAUSES.length);

    LockMeters(MeterRegistry registry, Tags base, boolean histograms) {
        this.registry = registry;
        this.base = base;
        this.histograms = histograms;
    }

    Timer acquireWait(Kind kind, AcquireOutcome outcome) {
        int slot = kind.ordinal() * OUTCOMES.length + outcome.ordinal();
        Timer timer = waits.get(slot);
        if (timer == null) {
            // a race registers twice at worst, and the registry hands both the same timer
            timer = Timer.builder(DlockMetrics.ACQUIRE_WAIT).description("dlock acquisitions, from start to outcome")
                    .tags(base).tags("kind", KINDS[kind.ordinal()], "outcome", OUTCOMES[outcome.ordinal()])
                    .publishPercentileHistogram(histograms).register(registry);
            waits.set(slot, timer);
        }
        return timer;
    }

    Timer hold(Kind kind, HoldEnding ending) {
        int slot = kind.ordinal() * ENDINGS.length + ending.ordinal();
        Timer timer = holds.get(slot);
        if (timer == null) {
            timer = Timer.builder(DlockMetrics.HOLD).description("dlock holds, from grant to release or loss")
                    .tags(base).tags("kind", KINDS[kind.ordinal()], "ending", ENDINGS[ending.ordinal()])
                    .publishPercentileHistogram(histograms).register(registry);
            holds.set(slot, timer);
        }
        return timer;
    }

    Counter loss(Kind kind, LossCause cause) {
        int slot = kind.ordinal() * CAUSES.length + cause.ordinal();
        Counter counter = losses.get(slot);
        if (counter == null) {
            counter = Counter.builder(DlockMetrics.LOSSES).description("dlock holds lost before their holder released them")
                    .tags(base).tags("kind", KINDS[kind.ordinal()], "cause", CAUSES[cause.ordinal()])
                    .register(registry);
            losses.set(slot, counter);
        }
        return counter;
    }
}
