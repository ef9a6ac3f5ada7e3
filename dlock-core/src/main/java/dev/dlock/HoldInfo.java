package dev.dlock;

import java.time.Duration;

/**
 * One hold of a name, as {@link LockInfo#holds()} lists it: the holder of an exclusive lock (a
 * reentrant or fair lock, a read-write lock's writer), one reader of a read-write lock, or one
 * permit of a semaphore.
 *
 * @param holder         who holds it
 * @param holdCount      its re-entries (1 for a permit)
 * @param remainingLease the time left on its lease, as the store had it
 * @param fencingToken   the hold's token
 * @param shared         true for a reader or a permit (others may hold the name at the same time),
 *                       false for an exclusive hold
 */
public record HoldInfo(LockHolder holder, int holdCount, Duration remainingLease, long fencingToken,
                       boolean shared) {
}
