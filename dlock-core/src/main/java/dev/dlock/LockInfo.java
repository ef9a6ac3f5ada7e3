package dev.dlock;

import java.time.Duration;
import java.util.Optional;

/**
 * A snapshot of one lock's state in Redis, read in one round trip.
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
 * @param heldFor        how long the current hold has lasted ({@link Duration#ZERO} when free): since
 *                       it was granted, on the Redis server's clock, so the reader's clock does not
 *                       matter. A re-entry does not restart it; a new holder (also a fair lock's
 *                       hand-over) does. For a read-write lock's readers: since the oldest read
 *                       hold still held. Over Redlock: the median of the nodes' copies. It comes
 *                       from the fencing token, which is at least the server's time at the grant,
 *                       so it can read short after a failover to a server whose clock is behind.
 */
public record LockInfo(String name, String key, Optional<LockHolder> holder, int holdCount,
                       Duration remainingLease, long fencingToken, long waitingClients, Duration heldFor) {

    /**
     * Whether anyone held the lock when the snapshot was taken.
     *
     * @return {@code true} when {@link #holder()} is present
     */
    public boolean isLocked() {
        return holder.isPresent();
    }
}
