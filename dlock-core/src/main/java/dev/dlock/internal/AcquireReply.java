package dev.dlock.internal;

/** What one acquire attempt on a {@link LockStore} came to. */
interface AcquireReply {

    /** Held now; the lease is known valid until {@code validUntilNanos} on this process's clock. */
    record Granted(long token, int holdCount, long validUntilNanos) implements AcquireReply {
    }

    /**
     * Held by someone else. Retry after a release message or {@code retryAfterMs}, whichever is
     * first. {@code split}: no one holds a quorum (contenders split the nodes); retry after a
     * random pause rather than at once, or the contenders split again.
     */
    record Busy(long retryAfterMs, boolean split) implements AcquireReply {
    }

    /** A re-entry found the caller no longer owns the lock. */
    record LostOnReentry() implements AcquireReply {
    }
}
