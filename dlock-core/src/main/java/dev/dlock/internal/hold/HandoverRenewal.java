package dev.dlock.internal.hold;

import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.Renewal;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A lock a release handed to one of this client's queued waiters lasts in the store no longer than
 * that waiter's queue deadline, and is known valid for the waiter timeout when its lease is longer
 * (see {@link dev.dlock.internal.acquire.Acquisition}): still held at half of that, it is renewed
 * once, early, to its own lease (an explicit lease: to what is left of it). A failed renewal is tried again at half of what
 * is left; the watchdog, or the lease's end on this client's clock, takes over from there.
 */
public final class HandoverRenewal {

    private final LockStore store;
    private final Ticker ticker;
    private final HoldLosses losses;
    private final HoldRegistry holds;

    public HandoverRenewal(LockStore store, Ticker ticker, HoldLosses losses, HoldRegistry holds) {
        this.store = store;
        this.ticker = ticker;
        this.losses = losses;
        this.holds = holds;
    }

    /**
     * @param fromNanos the start of the waiter's last attempt, from which its lease counts
     * @param renewed   a watchdog hold: renewed to its full lease; else to what is left of it
     */
    public void schedule(Hold hold, long fromNanos, boolean renewed) {
        long leftNanos = hold.validUntilNanos - ticker.nanoTime();
        ticker.schedule(() -> renew(hold, fromNanos, renewed),
                Math.max(TimeUnit.MILLISECONDS.toNanos(1), leftNanos / 2), TimeUnit.NANOSECONDS);
    }

    private void renew(Hold hold, long fromNanos, boolean renewed) {
        if (!holds.isRegistered(hold) || hold.isKnownInvalid()) {
            return;
        }
        long sentNanos = ticker.nanoTime();
        long leaseMs = renewed ? hold.leaseMs : hold.leaseMs - TimeUnit.NANOSECONDS.toMillis(sentNanos - fromNanos);
        if (leaseMs <= 0) {
            return;
        }
        store.renew(List.of(hold.snapshot()), leaseMs).whenComplete((outcomes, error) -> {
            Renewal outcome = error != null ? Renewal.UNKNOWN : outcomes[0];
            if (outcome == Renewal.RENEWED) {
                hold.validUntilNanos = Math.max(hold.validUntilNanos, store.validUntilNanos(sentNanos, leaseMs));
            } else if (outcome == Renewal.GONE) {
                losses.lost(hold, LossCause.GONE, "its key was gone or owned by another owner when it was renewed after the "
                        + "handoff (lease expired or force-released)");
            } else {
                schedule(hold, fromNanos, renewed);
            }
        });
    }
}
