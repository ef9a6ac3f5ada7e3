package dev.dlock.internal.store;

/** What one acquire attempt on a {@link LockStore} came to. */
public interface AcquireReply {

    /** Held now; the lease is known valid until {@code validUntilNanos} on this process's clock. */
    public record Granted(long token, int holdCount, long validUntilNanos) implements AcquireReply {
    }

    /**
     * Held by someone else. Retry after a release message or {@code retryAfterMs}, whichever is
     * first. {@code split}: no one holds a quorum (contenders split the nodes); retry after a
     * random pause rather than at once, or the contenders split again. {@code ticket}: a fair
     * waiter's place in the queue (0 when not queued), to be kept on its next attempts.
     */
    public record Busy(long retryAfterMs, boolean split, long ticket) implements AcquireReply {

        public Busy(long retryAfterMs, boolean split) {
            this(retryAfterMs, split, 0);
        }
    }

    /** A re-entry found the caller no longer owns the lock. */
    public record LostOnReentry() implements AcquireReply {
    }

    /**
     * A semaphore is held with another permit count than the caller's ({@code stored}); nothing was
     * changed. The count is fixed while any permit is held.
     */
    public record PermitsDiffer(int stored) implements AcquireReply {
    }
}
