package dev.dlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of one lock's state in the store, read in one round trip.
 *
 * <p>A name held by several at once (the readers of a read-write lock, the permits of a
 * semaphore) is summed up in the first fields, as its {@link DistributedLock#info()} describes,
 * and listed hold by hold in {@link #holds()}.
 *
 * @param name           the lock name
 * @param key            the lock's key in the store, {@code <prefix>{name}}
 * @param holder         who holds it; empty when the lock is free
 * @param holdCount      re-entries of the current hold (0 when free)
 * @param remainingLease time left on the lease ({@link Duration#ZERO} when free)
 * @param fencingToken   token of the current hold (0 when free)
 * @param waitingClients clients with at least one thread or handle waiting for the lock (each
 *                       client waits on one shared pub/sub connection, so this counts clients,
 *                       not threads)
 * @param heldFor        how long the current hold has lasted ({@link Duration#ZERO} when free): since
 *                       it was granted, on the store's clock, so the reader's clock does not
 *                       matter. A re-entry does not restart it; a new holder (also a fair lock's
 *                       hand-over) does. For a read-write lock's readers and a semaphore's permits:
 *                       since the oldest hold still held. Over Redlock: the median of the nodes'
 *                       copies. It comes from the fencing token, which is at least the server's
 *                       time at the grant, so it can read short after a failover to a server whose
 *                       clock is behind.
 * @param holds          every hold of the name in this view, in the order they were granted (by
 *                       fencing token; on Redlock, in the order they reached a quorum, which a node
 *                       that granted a hold late, after its acquire returned, can put out of token
 *                       order); empty when free
 * @param permits        a semaphore's permit count, as stored with it while any permit is held;
 *                       0 when the name is not a held semaphore
 */
public record LockInfo(String name, String key, Optional<LockHolder> holder, int holdCount,
                       Duration remainingLease, long fencingToken, long waitingClients, Duration heldFor,
                       List<HoldInfo> holds, int permits) {

    /**
     * A snapshot; {@code holds} is copied, so that the record stays immutable.
     *
     * @param name           the lock name
     * @param key            the lock's key in the store, {@code <prefix>{name}}
     * @param holder         who holds it; empty when the lock is free
     * @param holdCount      re-entries of the current hold (0 when free)
     * @param remainingLease time left on the lease
     * @param fencingToken   token of the current hold (0 when free)
     * @param waitingClients clients waiting for the lock
     * @param heldFor        how long the current hold has lasted
     * @param holds          every hold of the name in this view
     * @param permits        a semaphore's permit count; 0 when the name is not a held semaphore
     */
    public LockInfo {
        holds = List.copyOf(holds);
    }

    /**
     * The snapshot of a lock with at most one hold (not a semaphore): {@link #holds()} lists that
     * hold, as exclusive.
     *
     * @param name           the lock name
     * @param key            the lock's key in the store, {@code <prefix>{name}}
     * @param holder         who holds it; empty when the lock is free
     * @param holdCount      re-entries of the current hold (0 when free)
     * @param remainingLease time left on the lease
     * @param fencingToken   token of the current hold (0 when free)
     * @param waitingClients clients waiting for the lock
     * @param heldFor        how long the current hold has lasted
     */
    public LockInfo(String name, String key, Optional<LockHolder> holder, int holdCount, Duration remainingLease,
                    long fencingToken, long waitingClients, Duration heldFor) {
        this(name, key, holder, holdCount, remainingLease, fencingToken, waitingClients, heldFor,
                holder.map(who -> List.of(new HoldInfo(who, holdCount, remainingLease, fencingToken, false)))
                        .orElse(List.of()), 0);
    }

    /**
     * Whether anyone held the lock when the snapshot was taken.
     *
     * @return {@code true} when {@link #holder()} is present
     */
    public boolean isLocked() {
        return holder.isPresent();
    }
}
