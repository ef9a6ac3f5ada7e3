package dev.dlock.internal.hold;

import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.settings.Ticker;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The holds with an explicit lease, which is never renewed: when it runs out on this client's
 * clock the hold is lost (listeners, whenLost), without waiting for the store, which frees it at
 * about that time.
 */
public final class LeaseTimers {

    private final Ticker ticker;
    private final HoldRegistry holds;
    private final HoldLosses losses;
    private final Map<Hold, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();

    public LeaseTimers(Ticker ticker, HoldRegistry holds, HoldLosses losses) {
        this.ticker = ticker;
        this.holds = holds;
        this.losses = losses;
    }

    /** Declares the hold lost when its validity ends, unless it moved on by then. */
    public void loseAtLeaseEnd(Hold hold) {
        long leftNanos = hold.validUntilNanos - ticker.nanoTime();
        ScheduledFuture<?> timer = ticker.schedule(() -> {
            if (!holds.isRegistered(hold)) {
                return;
            }
            if (hold.validUntilNanos - ticker.nanoTime() > 0) {
                // moved on since (a lock handed over from the queue is renewed once to its lease)
                timers.remove(hold);
                loseAtLeaseEnd(hold);
                return;
            }
            losses.lost(hold, LossCause.EXPIRED, "its lease of " + hold.leaseMs + " ms ran out on this client's clock");
        }, Math.max(0, leftNanos), TimeUnit.NANOSECONDS);
        timers.put(hold, timer);
        hold.onLoss(() -> cancel(hold));
    }

    /** The hold is released or lost: no timer declares it lost any more. */
    public void cancel(Hold hold) {
        ScheduledFuture<?> timer = timers.remove(hold);
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
