package dev.dlock;

import java.time.Duration;
import java.util.Objects;

/**
 * One hold of a name, as {@link LockInfo#holds()} lists it: the holder of an exclusive lock (a
 * reentrant or fair lock, a read-write lock's writer), one reader of a read-write lock, or one
 * permit of a semaphore. Immutable; a final class (not a record) so that later versions can add
 * fields: {@link #of} makes one, and later versions may add factories with more fields beside it.
 */
public final class HoldInfo {

    private final LockHolder holder;
    private final int holdCount;
    private final Duration remainingLease;
    private final long fencingToken;
    private final boolean shared;

    private HoldInfo(LockHolder holder, int holdCount, Duration remainingLease, long fencingToken, boolean shared) {
        this.holder = Objects.requireNonNull(holder, "holder");
        this.holdCount = holdCount;
        this.remainingLease = Objects.requireNonNull(remainingLease, "remainingLease");
        this.fencingToken = fencingToken;
        this.shared = shared;
    }

    /**
     * A hold, as dlock's stores make them (and tests of code that reads them).
     *
     * @param holder         who holds it
     * @param holdCount      its re-entries (1 for a permit)
     * @param remainingLease the time left on its lease, as the store had it
     * @param fencingToken   the hold's token
     * @param shared         true for a reader or a permit, false for an exclusive hold
     * @return the hold
     * @throws NullPointerException the holder or the lease is null
     */
    public static HoldInfo of(LockHolder holder, int holdCount, Duration remainingLease, long fencingToken, boolean shared) {
        return new HoldInfo(holder, holdCount, remainingLease, fencingToken, shared);
    }

    /**
     * Who holds it.
     *
     * @return the holder
     */
    public LockHolder holder() {
        return holder;
    }

    /**
     * Its re-entries.
     *
     * @return the count (1 for a permit)
     */
    public int holdCount() {
        return holdCount;
    }

    /**
     * The time left on its lease, as the store had it.
     *
     * @return the time left
     */
    public Duration remainingLease() {
        return remainingLease;
    }

    /**
     * The hold's token.
     *
     * @return the token
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * Whether others may hold the name at the same time.
     *
     * @return true for a reader or a permit, false for an exclusive hold
     */
    public boolean shared() {
        return shared;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HoldInfo that && holder.equals(that.holder) && holdCount == that.holdCount
                && remainingLease.equals(that.remainingLease) && fencingToken == that.fencingToken && shared == that.shared;
    }

    @Override
    public int hashCode() {
        return Objects.hash(holder, holdCount, remainingLease, fencingToken, shared);
    }

    @Override
    public String toString() {
        return "HoldInfo[holder=" + holder + ", holdCount=" + holdCount + ", remainingLease=" + remainingLease
                + ", fencingToken=" + fencingToken + ", shared=" + shared + "]";
    }
}
