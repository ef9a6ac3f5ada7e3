package dev.dlock.internal.acquire;

import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.concurrent.TimeUnit;

/**
 * An acquisition's part in the local handoff: where an acquisition of a kind that hands off
 * locally, on a store that can, waits while it is busy (parked in {@link LocalHandoff}, so that a
 * release by another thread of this client can hand the lock over without a round trip), and how
 * it answers that release ({@link ParkedWaiters.Waiter}). Of any other kind, over Redlock, and
 * for a re-entry, it never parks.
 */
final class LocalPark implements ParkedWaiters.Waiter {

    private final LocalHandoff handoff;
    private final Ticker ticker;
    private final String key;
    private final boolean enabled;
    private final Acquisition acquisition;

    LocalPark(AcquireContext context, LockTarget target, LockKind kind, Acquisition acquisition) {
        this.handoff = context.handoff();
        this.ticker = context.ticker();
        this.key = target.key();
        this.enabled = !acquisition.attempts().reentry() && handoff.parksFor(kind);
        this.acquisition = acquisition;
    }

    boolean enabled() {
        return enabled;
    }

    /**
     * While another thread of this client holds the lock, the store would refuse: how long to park
     * at once instead of asking, until just after that hold's validity ends and at most until the
     * acquisition's deadline. 0 when the store must be asked.
     */
    long insteadOfAsking() {
        long heldUntil = handoff.heldHereUntilNanos(key);
        long validNanos = heldUntil == 0 ? 0 : heldUntil - ticker.nanoTime();
        Deadline deadline = acquisition.deadline();
        if (validNanos <= 0 || deadline.passed()) {
            return 0;
        }
        return deadline.cap(validNanos + TimeUnit.MILLISECONDS.toNanos(1));
    }

    void park() {
        handoff.park(key, this);
    }

    void unpark() {
        handoff.unpark(key, this);
    }

    /**
     * A release by this client is about to hand the lock to this waiter: true when the waiter
     * was parked and is now bound to wait for {@link #takeOver} or {@link #resume}; false when it
     * is already trying again on its own (woken by a message, its timer or a cancel).
     */
    @Override
    public boolean claimForHandoff() {
        return acquisition.claimWait();
    }

    /** The owner id under which a claimed waiter is handed the lock: a fresh one, as for an attempt. */
    @Override
    public String ownerForHandoff() {
        return acquisition.attempts().freshOwner();
    }

    /** The handoff gave the lock to this claimed waiter. */
    @Override
    public void takeOver(AcquireReply.Granted grant) {
        acquisition.finish(grant);
    }

    /** The handoff did not give the lock to this claimed waiter: it tries on its own again. */
    @Override
    public void resume() {
        acquisition.attempt();
    }

    @Override
    public String waiterId() {
        return acquisition.queue().waiterId();
    }

    @Override
    public boolean isQueued() {
        return acquisition.queue().isQueuedInStore();
    }

    @Override
    public long leaseMs() {
        return acquisition.attempts().leaseMs();
    }

    @Override
    public String holder() {
        return acquisition.attempts().holder();
    }

    /**
     * While this client has the lock it parks again; queued in the store, it waits on for the
     * message naming it (the messages since its last attempt included, see {@link ChannelWatch});
     * either way, a queued waiter asks again before its queue deadline. Otherwise it asks now.
     */
    @Override
    public void handedToAnother() {
        if (acquisition.isOver()) {
            acquisition.attempt();
            return;
        }
        long waitNanos = insteadOfAsking();
        QueuePlace queue = acquisition.queue();
        if (queue.isQueuedInStore()) {
            long queuedWait = acquisition.deadline().cap(queue.refreshNanos());
            waitNanos = waitNanos > 0 ? Math.min(waitNanos, queuedWait) : queuedWait;
        }
        if (waitNanos > 0) {
            acquisition.waitForWake(waitNanos, true);
        } else {
            acquisition.attempt();
        }
    }
}
