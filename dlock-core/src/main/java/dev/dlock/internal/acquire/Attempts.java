package dev.dlock.internal.acquire;

import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.store.AcquireRequest;

/**
 * What each attempt of one acquisition asks the store: a fresh owner id per attempt (so that a
 * command of a failed attempt that reaches a server late, a NOSCRIPT retry or a paused server's
 * backlog, cannot touch a later grant), or the hold's own for a re-entry; the lease, the holder,
 * the downgrade and the semaphore's permit count.
 */
public final class Attempts {

    private final ClientIdentity identity;
    private final String ownerPrefix;
    private final String holder;
    private final long leaseMs;
    private final boolean reentry;
    private final String downgradeFrom;
    private final long waiterTimeoutMs;
    /** Semaphore: the permit count the caller expects; 0 for other kinds. */
    private volatile int permits;
    /** The owner id of the current attempt: once granted, the hold's. */
    private volatile String owner;
    /** When the last attempt was sent (monotonic nanos). */
    private volatile long lastStartNanos;

    /**
     * @param owner         for a re-entry the hold's owner id; else a prefix to which each attempt
     *                      adds a sequence number
     * @param downgradeFrom read lock: owner id of the calling thread's write hold, else ""
     */
    Attempts(ClientIdentity identity, String owner, String holder, long leaseMs, boolean reentry, String downgradeFrom,
             long waiterTimeoutMs) {
        this.identity = identity;
        this.ownerPrefix = owner;
        this.owner = owner;
        this.holder = holder;
        this.leaseMs = leaseMs;
        this.reentry = reentry;
        this.downgradeFrom = downgradeFrom;
        this.waiterTimeoutMs = waiterTimeoutMs;
    }

    void permits(int permits) {
        this.permits = permits;
    }

    int permits() {
        return permits;
    }

    public String owner() {
        return owner;
    }

    public String holder() {
        return holder;
    }

    public long leaseMs() {
        return leaseMs;
    }

    boolean reentry() {
        return reentry;
    }

    /** A fresh owner id, as for an attempt: under it a handoff grants the lock. */
    String freshOwner() {
        owner = ownerPrefix + ":" + identity.nextOwnerSequence();
        return owner;
    }

    /** The lock was handed over under this owner id (a queued waiter's id). */
    void ownedAs(String handedOwner) {
        owner = handedOwner;
    }

    /** When the last attempt was sent (monotonic nanos). */
    long lastStartNanos() {
        return lastStartNanos;
    }

    /** The next attempt's request, sent at {@code nowNanos}; {@code mayWait}: it asks to be queued if refused. */
    AcquireRequest next(QueuePlace queue, boolean mayWait, long nowNanos) {
        lastStartNanos = nowNanos;
        if (!reentry) {
            freshOwner();
        }
        return new AcquireRequest(owner, leaseMs, holder, reentry, queue.waiterId(), waiterTimeoutMs, mayWait,
                queue.ticket(), downgradeFrom, permits);
    }
}
