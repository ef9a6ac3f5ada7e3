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
 *
 * <p>Not for implementation outside dlock: dlock's {@link LockClient} hands out its implementations, and
 * methods may be added.
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
     * Whether the hold is still valid, as far as this process knows. Does not call the store.
     *
     * @return {@code true} until the handle is released or the hold is known to be lost
     */
    boolean isValid();

    /**
     * How long the hold is known to stay valid, measured on this process's monotonic clock from the
     * last successful acquire or renewal (a conservative estimate; the store may keep it a bit longer).
     * Does not call the store: a local estimate, unlike {@link DistributedLock#remainingLease()}, which
     * asks the store for the lease left on the lock, whoever holds it.
     *
     * @return the time left; {@link Duration#ZERO} once released or lost
     */
    Duration leaseEstimate();

    /**
     * Tells of the loss of this hold.
     *
     * @return a new future on each call, the caller's own: completing or cancelling it changes nothing of
     *         the hold. It completes with the loss when the hold is lost (at once when it is lost already);
     *         never if the hold is released normally
     */
    CompletableFuture<LockLostException> whenLost();

    /**
     * Releases the hold. Blocks for at most the command timeout.
     *
     * @throws LockLostException      the hold was lost before the release (the lock is untouched)
     * @throws LockBackendException   the store did not answer; the lease expires by itself
     * @throws IllegalMonitorStateException released already (as {@link java.util.concurrent.locks.Lock#unlock()}
     *                                      of a lock not held; the same from {@link DistributedSemaphore#release(LockHandle)})
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
     * Releases the hold, but not before it has been held for {@code holdAtLeast}: released earlier,
     * the lock stays held in the store for what is left of that time (its lease is set to it, and no
     * longer renewed), and then frees itself; others cannot take it meanwhile, not even through
     * this client. Released later, the same as {@link #release()}. The time counts from when the
     * acquire returned, so the lock is held at least that long. For a job that must not run twice
     * within a period, wherever it starts late (ShedLock's "lock at least for"). Blocks for at most
     * the command timeout; the handle counts as released as soon as this is called.
     *
     * @param holdAtLeast how long the hold lasts at least, from its acquire; zero for a plain
     *                    release; at most {@link LockClient#MAX_LEASE}
     * @throws IllegalArgumentException the duration is null, negative or too long; nothing is released
     * @throws LockLostException        the hold was lost before the release (the lock is untouched)
     * @throws LockBackendException     the store did not answer (over Redlock: no quorum); the hold stays
     *                                  until its lease ends
     * @throws IllegalMonitorStateException released already
     */
    void releaseHoldingAtLeast(Duration holdAtLeast);

    /**
     * The non-blocking {@link #releaseHoldingAtLeast(Duration)}.
     *
     * @param holdAtLeast how long the hold lasts at least, from its acquire
     * @return completes when the lease is set (or the hold released), or exceptionally with what
     *         {@link #releaseHoldingAtLeast(Duration)} would throw
     * @throws IllegalArgumentException the duration is null, negative or too long; nothing is released
     */
    CompletableFuture<Void> releaseHoldingAtLeastAsync(Duration holdAtLeast);

    /**
     * Releases unless released already.
     *
     * @throws LockLostException    the hold was lost before the release (the lock is untouched)
     * @throws LockBackendException the store did not answer; the lease expires by itself
     */
    @Override
    void close();
}
