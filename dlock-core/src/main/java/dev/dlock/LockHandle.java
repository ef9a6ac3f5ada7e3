package dev.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A hold acquired through the async API. It is owned by the handle, not by a thread: any thread
 * may release it, so it suits virtual threads and code that hops threads. Handles are not
 * reentrant: two handles on one lock exclude each other, even within one client.
 *
 * <p>{@link #close()} releases, so a handle works with try-with-resources.
 */
public interface LockHandle extends AutoCloseable {

    /** The lock name. */
    String lockName();

    /** The fencing token of this hold: greater than every token handed out before for this name. */
    long fencingToken();

    /** True until the handle is released or the hold is known to be lost. Does not call Redis. */
    boolean isValid();

    /**
     * How long the hold is known to stay valid, measured on this process's monotonic clock from the
     * last successful acquire or renewal (a conservative estimate; Redis may keep it a bit longer).
     * {@link Duration#ZERO} once released or lost. Does not call Redis.
     */
    Duration remainingLease();

    /** Completes with the loss when the hold is lost; never completes if released normally. */
    CompletableFuture<LockLostException> whenLost();

    /**
     * Releases the hold. Blocks for at most the command timeout.
     *
     * @throws LockLostException      the hold was lost before the release (the lock is untouched)
     * @throws LockBackendException   Redis did not answer; the lease expires by itself
     * @throws IllegalStateException  released already
     */
    void release();

    /** The non-blocking {@link #release()}: completes as release returns or throws. */
    CompletableFuture<Void> releaseAsync();

    /** Releases unless released already; reports a loss like {@link #release()}. */
    @Override
    void close();
}
