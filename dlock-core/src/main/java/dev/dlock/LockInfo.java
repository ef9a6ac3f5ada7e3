package dev.dlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of one lock's state in Redis, read in one round trip.
 *
 * <p>A name held by several at once (the readers of a read-write lock, the permits of a
 * semaphore) is summed up in the first fields, as its {@link DistributedLock#info()} describes,
 * and listed hold by hold in {@link #holds()}.
 *
 * @param name           the lock name
 * @param key            the Redis key of the lock
 * @param holder         who holds it; empty when the lock is free
 * @param holdCount      re-entries of the current hold (0 when free)
 * @param remainingLease time left on the lease ({@link Duration#ZERO} when free)
 * @param fencingToken   token of the current hold (0 when free)
 * @param waitingClients clients with at least one thread or handle waiting for the lock (each
 *                       client waits on one shared pub/sub connection, so this counts clients,
 *                       not threads)
 * @param holds          every hold of the name in this view, in the order they were granted (by
 *                       fencing token); empty when free
 * @param permits        a semaphore's permit count, as stored with it while any permit is held;
 *                       0 when the name is not a held semaphore
 */
public record LockInfo(String name, String key, Optional<LockHolder> holder, int holdCount,
                       Duration remainingLease, long fencingToken, long waitingClients, List<LockHold> holds,
                       int permits) {

    /** Copies {@code holds}: the record is immutable. */
    public LockInfo {
        holds = List.copyOf(holds);
    }

    /**
     * The snapshot of a lock with at most one hold (not a semaphore): {@link #holds()} lists that
     * hold, as exclusive.
     *
     * @param name           the lock name
     * @param key            the Redis key of the lock
     * @param holder         who holds it; empty when the lock is free
     * @param holdCount      re-entries of the current hold (0 when free)
     * @param remainingLease time left on the lease
     * @param fencingToken   token of the current hold (0 when free)
     * @param waitingClients clients waiting for the lock
     */
    public LockInfo(String name, String key, Optional<LockHolder> holder, int holdCount, Duration remainingLease,
                    long fencingToken, long waitingClients) {
        this(name, key, holder, holdCount, remainingLease, fencingToken, waitingClients,
                holder.map(who -> List.of(new LockHold(who, holdCount, remainingLease, fencingToken, false)))
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
