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
 */
public record LockInfo(String name, String key, Optional<LockHolder> holder, int holdCount,
                       Duration remainingLease, long fencingToken, long waitingClients) {

    /**
     * Whether anyone held the lock when the snapshot was taken.
     *
     * @return {@code true} when {@link #holder()} is present
     */
    public boolean isLocked() {
        return holder.isPresent();
    }
}
