package dev.dlock.micrometer;

import static dev.dlock.micrometer.DlockMetrics.CAUSES;
import static dev.dlock.micrometer.DlockMetrics.ENDINGS;
import static dev.dlock.micrometer.DlockMetrics.KINDS;
import static dev.dlock.micrometer.DlockMetrics.OUTCOMES;

import dev.dlock.LockKind;
import dev.dlock.LockObserver.AcquireOutcome;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.LockObserver.LossCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * The per-lock meters of one value of the lock tag (or of none), each registered on its first
 * use, but for those that alerts read, registered at zero when these are made: an alert on their
 * increase ({@code increase(dlock_losses_total[5m]) > 0}) would not see a series that appears with
 * its first event already at 1. After that, finding a meter is an array read.
 */
final class LockMeters {
    /** The acquire outcomes alerts read: callers giving up, Redis failing. */
    private static final AcquireOutcome[] ALERTED_OUTCOMES = {AcquireOutcome.TIMED_OUT, AcquireOutcome.ERROR};

    private final Family<Timer> waits;
    private final Family<Timer> holds;
    private final Family<Counter> losses;

    /**
     * @param atZero whether to register the meters alerts read now; not for the meters without a
     *               lock tag when there is a lock tag function, which are used only for names it
     *               maps to null, if any (Prometheus refuses a name with two sets of tag keys)
     */
    LockMeters(MeterRegistry registry, Tags base, boolean histograms, boolean atZero) {
        waits = new Family<>("outcome", OUTCOMES, tags -> Timer.builder(DlockMetrics.ACQUIRE_WAIT)
                .description("dlock acquisitions, from start to outcome")
                .tags(base).tags(tags).publishPercentileHistogram(histograms).register(registry));
        holds = new Family<>("ending", ENDINGS, tags -> Timer.builder(DlockMetrics.HOLD)
                .description("dlock holds, from grant to release or loss")
                .tags(base).tags(tags).publishPercentileHistogram(histograms).register(registry));
        losses = new Family<>("cause", CAUSES, tags -> Counter.builder(DlockMetrics.LOSSES)
                .description("dlock holds lost before their holder released them")
                .tags(base).tags(tags).register(registry));
        for (LockKind kind : atZero ? LockKind.values() : new LockKind[0]) {
            for (LossCause cause : LossCause.values()) {
                if (cause != LossCause.CLIENT_CLOSED) {   // never a loss the observer is told of
                    losses.get(kind, cause);
                }
            }
            for (AcquireOutcome outcome : ALERTED_OUTCOMES) {
                waits.get(kind, outcome);
            }
        }
    }

    Timer acquireWait(LockKind kind, AcquireOutcome outcome) {
        return waits.get(kind, outcome);
    }

    Timer hold(LockKind kind, HoldEnding ending) {
        return holds.get(kind, ending);
    }

    Counter loss(LockKind kind, LossCause cause) {
        return losses.get(kind, cause);
    }

    /** The meters of one name: one for each kind and value of its second tag. */
    private static final class Family<M> {
        private final String tag;
        private final String[] values;
        private final Function<Tags, M> register;
        private final AtomicReferenceArray<M> meters;

        Family(String tag, String[] values, Function<Tags, M> register) {
            this.tag = tag;
            this.values = values;
            this.register = register;
            this.meters = new AtomicReferenceArray<>(KINDS.length * values.length);
        }

        M get(LockKind kind, Enum<?> value) {
            int slot = kind.ordinal() * values.length + value.ordinal();
            M meter = meters.get(slot);
            if (meter == null) {
                // a race registers twice at worst, and the registry hands both the same meter
                meter = register.apply(Tags.of("kind", KINDS[kind.ordinal()], tag, values[value.ordinal()]));
                meters.set(slot, meter);
            }
            return meter;
        }
    }
}
