package dev.dlock.internal.observe;

import dev.dlock.LockInfo;
import dev.dlock.LockObserver.AcquireOutcome;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.settings.SlowLockSettings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.Failures;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs holds and waits that last longer than the client's thresholds: one WARN when one passes its
 * threshold, one more when it ends, with the total. One periodic check on the client's timer looks
 * at every hold and every waiting acquisition (no timer per hold: a client may hold 100,000
 * locks); see {@link SlowLockSettings#checkPeriodNanos()} for how late a warning may come. A wait
 * that passes its threshold reads the lock's holder from the store once (one inspect per lock and
 * check, however many of its waiters passed).
 */
public final class SlowLockWarnings {

    private static final Logger LOG = LoggerFactory.getLogger(SlowLockWarnings.class);

    private final SlowLockSettings settings;
    private final Ticker ticker;
    private final HoldRegistry holds;
    private final Collection<AcquireTrace> waiting;
    private final LockInspector inspector;
    private final ScheduledFuture<?> check;

    public SlowLockWarnings(SlowLockSettings settings, Ticker ticker, HoldRegistry holds, Collection<AcquireTrace> waiting,
                     LockInspector inspector) {
        this.settings = settings;
        this.ticker = ticker;
        this.holds = holds;
        this.waiting = waiting;
        this.inspector = inspector;
        long period = settings.checkPeriodNanos();
        this.check = ticker.scheduleAtFixedRate(this::check, period, period, TimeUnit.NANOSECONDS);
    }

    public void stop() {
        check.cancel(false);
    }

    private void check() {
        try {
            long now = ticker.nanoTime();
            if (settings.warnsOfHolds()) {
                checkHolds(now);
            }
            if (settings.warnsOfWaits()) {
                checkWaits(now);
            }
        } catch (RuntimeException e) {
            // the next check tries again; a failed check must not cancel the periodic task
            LOG.debug("slow-lock check failed", e);
        }
    }

    private void checkHolds(long now) {
        long threshold = settings.slowHold().toNanos();
        for (Hold hold : holds.live()) {
            long heldNanos = now - hold.heldSinceNanos;
            if (!hold.reportedSlow && heldNanos >= threshold) {
                hold.reportedSlow = true;
                LOG.warn("slow hold: {} '{}' held for {}, longer than slowHoldThreshold {}, by {}{}",
                        hold.kind.label(), hold.name, format(heldNanos), format(settings.slowHold()),
                        ClientIdentity.parseHolder(hold.holder), site("acquired at", hold.acquireSite));
            }
        }
    }

    private void checkWaits(long now) {
        long threshold = settings.slowWait().toNanos();
        Map<String, CompletableFuture<LockInfo>> infos = null;
        for (AcquireTrace trace : waiting) {
            long waitedNanos = now - trace.startNanos;
            if (trace.reportedSlow || waitedNanos < threshold) {
                continue;
            }
            trace.reportedSlow = true;
            if (infos == null) {
                infos = new HashMap<>();
            }
            infos.computeIfAbsent(trace.target.key(), key -> inspector.inspect(trace.target, trace.kind))
                    .whenComplete((info, error) -> LOG.warn(
                            "slow wait: {} has waited {} for {} '{}', longer than slowWaitThreshold {}; {}{}",
                            ClientIdentity.parseHolder(trace.holder), format(waitedNanos), trace.kind.label(),
                            trace.target.name(), format(settings.slowWait()), holderOf(info, error),
                            site("acquire called at", trace.site)));
        }
    }

    public void holdEnded(Hold hold, HoldEnding ending, long heldNanos) {
        LOG.warn("slow hold ended: {} '{}' {} after {} (slowHoldThreshold {}), by {}{}", hold.kind.label(), hold.name,
                ending == HoldEnding.RELEASED ? "released" : "lost", format(heldNanos), format(settings.slowHold()),
                ClientIdentity.parseHolder(hold.holder), site("acquired at", hold.acquireSite));
    }

    public void waitEnded(AcquireTrace trace, AcquireOutcome outcome, long waitedNanos) {
        LOG.warn("slow wait ended: {} waited {} for {} '{}' (slowWaitThreshold {}): {}{}",
                ClientIdentity.parseHolder(trace.holder), format(waitedNanos), trace.kind.label(), trace.target.name(),
                format(settings.slowWait()), outcome.name().toLowerCase(Locale.ROOT).replace('_', ' '),
                site("acquire called at", trace.site));
    }

    private static String holderOf(LockInfo info, Throwable error) {
        if (error != null) {
            return "its holder is unknown (" + Failures.unwrap(error).getMessage() + ")";
        }
        if (info.holder().isEmpty()) {
            return "it is free now";
        }
        return "held by " + info.holder().get() + ", lease left " + format(info.remainingLease()) + ", "
                + info.waitingClients() + " client(s) waiting";
    }

    private static String site(String what, StackTraceElement site) {
        return site == null ? "" : "; " + what + " " + site;
    }

    public static String format(long nanos) {
        return format(Duration.ofNanos(nanos));
    }

    /** "850 ms", "12.3 s", "4.0 min": enough digits to read, no more. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 120_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return String.format(Locale.ROOT, "%.1f min", millis / 60_000.0);
    }
}
