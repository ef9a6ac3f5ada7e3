package dev.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A hold acquired through the async API, or one permit of a {@link DistributedSemaphore}. It is
 * owned by the handle, not by a thread: any thread may release it, so it suits virtual threads and
 * code that hops threads. Handles are not reentrant: two handles on one lock exclude each other,
 * even within one client (two permits of a semaphore are two of its holders).
 *
 * <p>{@link #close()} releases, so a handle works with try-with-resources.
 */
public interface LockHandle extends AutoCloseable {

    /**
     * The lock's name.
     *
     * @return the name of the lock this handle holds
     */
    String lockName();

    /**
     * The fencing token of this hold.
     *
     * @return a token greater than every token handed out before for this name
     */
    long fencingToken();

    /**
     * Whether the hold is still valid, as far as this process knows. Does not call Redis.
     *
     * @return {@code true} until the handle is released or the hold is known to be lost
     */
    boolean isValid();

    /**
     * How long the hold is known to stay valid, measured on this process's monotonic clock from the
     * last successful acquire or renewal (a conservative estimate; Redis may keep it a bit longer).
     * Does not call Redis.
     *
     * @return the time left; {@link Duration#ZERO} once released or lost
     */
    Duration remainingLease();

    /**
     * Tells of the loss of this hold.
     *
     * @return completes with the loss when the hold is lost; never completes if released normally
     */
    CompletableFuture<LockLostException> whenLost();

    /**
     * Releases the hold. Blocks for at most the command timeout.
     *
     * @throws LockLostException      the hold was lost before the release (the lock is untouched)
     * @throws LockBackendException   Redis did not answer; the lease expires by itself
     * @throws IllegalStateException  released already
     */
    void release();

    /**
     * The non-blocking {@link #release()}.
     *
     * @return completes when the release is done, or exceptionally with what {@link #release()}
     *         would throw
     */
    CompletableFuture<Void> releaseAsync();

    /**
     * Releases unless released already.
     *
     * @throws LockLostException    the hold was lost before the release (the lock is untouched)
     * @throws LockBackendException Redis did not answer; the lease expires by itself
     */
    @Override
    void close();
}
