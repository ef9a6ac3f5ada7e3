package dev.dlock.internal.acquire;

import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.concurrent.TimeUnit;

/**
 * Where an acquisition of a kind that hands off locally, on one Redis, waits while it is busy:
 * parked in {@link LocalHandoff}, so that a release by another thread of this client can hand the
 * lock over without a round trip. Of any other kind, over Redlock, and for a re-entry, it never
 * parks.
 */
public final class LocalPark {

    private final LocalHandoff handoff;
    private final Ticker ticker;
    private final String key;
    private final boolean enabled;

    public LocalPark(Acquisition.Context context, LockTarget target, LockKind kind, boolean reentry) {
        this.handoff = context.handoff();
        this.ticker = context.ticker();
        this.key = target.key();
        this.enabled = !reentry && handoff.parksFor(kind);
    }

    public boolean enabled() {
        return enabled;
    }

    /**
     * While another thread of this client holds the lock, Redis would refuse: how long to park at
     * once instead of asking, until just after that hold's validity ends and at most until the
     * acquisition's deadline. 0 when Redis must be asked.
     */
    public long insteadOfAsking(long deadlineNanos, boolean unbounded) {
        long heldUntil = handoff.heldHereUntilNanos(key);
        long now = ticker.nanoTime();
        long validNanos = heldUntil == 0 ? 0 : heldUntil - now;
        long remaining = deadlineNanos - now;
        if (validNanos <= 0 || (!unbounded && remaining <= 0)) {
            return 0;
        }
        long waitNanos = validNanos + TimeUnit.MILLISECONDS.toNanos(1);
        return unbounded ? waitNanos : Math.min(waitNanos, remaining);
    }

    public void park(ParkedWaiters.Waiter waiter) {
        handoff.park(key, waiter);
    }

    public void unpark(ParkedWaiters.Waiter waiter) {
        handoff.unpark(key, waiter);
    }
}
