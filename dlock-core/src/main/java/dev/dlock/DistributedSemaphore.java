package dev.dlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore shared by every process that uses the same store (Redis, Redlock nodes, memory, PostgreSQL), key prefix and
 * name: at most {@link #permits()} holders at once, across all of them.
 *
 * <h2>Permits are handles</h2>
 * Each acquire returns a {@link LockHandle} for one permit: it is owned by the handle, not by a
 * thread (release it from any thread), it has its own lease and its own fencing token, and a
 * permit is not reentrant: a thread that asks again takes a second permit.
 *
 * <h2>Leases</h2>
 * Every permit has a lease after which the store gives it back by itself, so a holder that dies
 * (SIGKILL, host down) frees its permit when its lease ends. Without an explicit lease the
 * client's watchdog lease applies (default 30 s) and is renewed every third of it while the
 * holder's process lives; an explicit lease is never renewed. A permit that outlives its lease is
 * lost ({@link LockHandle#whenLost()}, {@link LockListener}s).
 *
 * <h2>The permit count</h2>
 * The count is stored with the semaphore in the store by the acquire that finds it empty, and is fixed
 * while any permit is held: an acquire that gives another count fails with
 * {@link IllegalStateException} naming both counts, rather than letting more (or fewer) holders
 * in than the others expect. Once every permit is released or expired the semaphore leaves
 * nothing in the store, and the next acquire sets the count afresh.
 *
 * <h2>Fencing tokens</h2>
 * Every permit's token is greater than every token handed out before for this name (permits and
 * locks alike), so a resource that remembers the highest token it has seen refuses a holder that
 * was paused past its lease. Holders of different permits hold at the same time: such a resource
 * then also refuses the older of two live permits, so fence what only the newest may write.
 *
 * <h2>Waiting and failures</h2>
 * As for {@link DistributedLock}: waiters are woken by a pub/sub message when a permit is
 * released, or when the first lease of the holders ends; "no permit free" is {@code false} / empty,
 * "the store did not answer" is {@link LockBackendException}; an acquire that may wait rides through
 * store outages within its wait (without a wait, within the client's outage tolerance), and one
 * with a wait answers within it and {@link LockClient#WAIT_OVERRUN} even when the store does not
 * answer.
 *
 * <h2>Over Redlock</h2>
 * A permit is one of the count's slots, held on a majority of the nodes; a slot held on a
 * majority has one holder, so at most {@link #permits()} hold at once (see docs/locks.md).
 *
 * <p>Not for implementation outside dlock: dlock's {@link LockClient} hands out its implementations, and
 * methods may be added.
 */
public interface DistributedSemaphore {

    /**
     * The semaphore's name.
     *
     * @return the name given to {@link LockClient#getSemaphore(String, int)}
     */
    String name();

    /**
     * The permit count this object asks with.
     *
     * @return the count given to {@link LockClient#getSemaphore(String, int)}
     */
    int permits();

    /**
     * Takes a permit, waiting without bound, with the watchdog lease.
     *
     * @return the permit
     * @throws InterruptedException   interrupted before or while waiting; nothing is left held
     * @throws IllegalStateException  the semaphore is held with another permit count, or the client is closed
     * @throws LockBackendException   the store kept failing for the whole outage tolerance; nothing is left held
     */
    LockHandle acquire() throws InterruptedException;

    /**
     * Takes a permit, waiting without bound, held for {@code lease} without renewal.
     *
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return the permit
     * @throws InterruptedException     interrupted before or while waiting; nothing is left held
     * @throws IllegalArgumentException the lease is null, not positive or too long
     * @throws IllegalStateException    the semaphore is held with another permit count, or the client is closed
     * @throws LockBackendException     the store kept failing for the whole outage tolerance; nothing is left held
     */
    LockHandle acquire(Duration lease) throws InterruptedException;

    /**
     * {@link #acquire()} that ignores interrupts; the interrupt flag is set again when it returns.
     *
     * @return the permit
     * @throws IllegalStateException the semaphore is held with another permit count, or the client is closed
     * @throws LockBackendException  the store kept failing for the whole outage tolerance; nothing is left held
     */
    LockHandle acquireUninterruptibly();

    /**
     * One attempt without waiting, with the watchdog lease.
     *
     * @return the permit, or empty when every permit is held
     * @throws IllegalStateException the semaphore is held with another permit count, or the client is closed
     * @throws LockBackendException  the store did not answer; nothing is left held
     */
    Optional<LockHandle> tryAcquire();

    /**
     * Waits up to {@code wait} for a permit with the watchdog lease.
     *
     * @param wait zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @return the permit, or empty when the wait ended first
     * @throws InterruptedException     interrupted while waiting; nothing is left held
     * @throws IllegalArgumentException the wait is null or negative
     * @throws IllegalStateException    the semaphore is held with another permit count, or the client is closed
     * @throws LockBackendException     the store was still failing when the wait ended; nothing is left held
     */
    Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for a permit held for {@code lease} without renewal.
     *
     * @param wait  zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return the permit, or empty when the wait ended first
     * @throws InterruptedException     interrupted while waiting; nothing is left held
     * @throws IllegalArgumentException the wait or lease is null or out of range
     * @throws IllegalStateException    the semaphore is held with another permit count, or the client is closed
     * @throws LockBackendException     the store was still failing when the wait ended; nothing is left held
     */
    Optional<LockHandle> tryAcquire(Duration wait, Duration lease) throws InterruptedException;

    /**
     * The non-blocking {@link #acquire()}. Completing the future yourself (a cancel, a timeout, a value of
     * your own) stops the wait, and a permit granted meanwhile is given back, as for a lock's
     * {@link DistributedLock#acquireAsync()} (see its "Async acquires").
     *
     * @return completes with the permit, or exceptionally as {@link #acquire()} would throw
     * @throws IllegalStateException the client is closed
     */
    CompletableFuture<LockHandle> acquireAsync();

    /**
     * The non-blocking {@link #acquire(Duration)}; completing the future yourself stops the wait, as for
     * {@link #acquireAsync()}.
     *
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return completes with the permit, or exceptionally as {@link #acquire(Duration)} would throw
     * @throws IllegalArgumentException the lease is null, not positive or too long
     * @throws IllegalStateException    the client is closed
     */
    CompletableFuture<LockHandle> acquireAsync(Duration lease);

    /**
     * The non-blocking {@link #tryAcquire(Duration)}; completing the future yourself stops the wait, as for
     * {@link #acquireAsync()}.
     *
     * @param wait zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @return completes with the permit, or empty when the wait ended first
     * @throws IllegalArgumentException the wait is null or negative
     * @throws IllegalStateException    the client is closed
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait);

    /**
     * The non-blocking {@link #tryAcquire(Duration, Duration)}; completing the future yourself stops the wait, as for
     * {@link #acquireAsync()}.
     *
     * @param wait  zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return completes with the permit, or empty when the wait ended first
     * @throws IllegalArgumentException the wait or lease is null or out of range
     * @throws IllegalStateException    the client is closed
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease);

    /**
     * Gives a permit back: the same as {@code permit.release()}, checked to be a permit of this
     * semaphore that this client holds.
     *
     * @param permit a permit this semaphore (or another object of the same name and client) returned
     * @throws IllegalMonitorStateException {@code permit} is null, not a permit of this semaphore
     *                                      taken through this client, or released already
     * @throws LockLostException            the permit was lost before the release (its lease ended,
     *                                      or it was force-released); nothing else is touched
     * @throws LockBackendException         the store did not answer; the lease frees the permit by itself
     */
    void release(LockHandle permit);

    /**
     * How many permits are free now. One round trip to the store.
     *
     * @return the stored permit count (this object's when none is held) minus the permits held; 0 or more
     * @throws LockBackendException the store did not answer
     */
    int availablePermits();

    /**
     * The semaphore's state in the store. One round trip. {@link LockInfo#holds()} lists every permit
     * held (holder, lease left, token); {@link LockInfo#permits()} is the stored count; the first
     * fields sum the permits up: {@code holdCount} permits held, the highest token, the longest
     * lease left, and one holder.
     *
     * @return a snapshot of the semaphore
     * @throws LockBackendException the store did not answer
     */
    LockInfo info();

    /**
     * Takes every permit away from its holder (operator action); their clients are told at once, as
     * for {@link DistributedLock#forceUnlock()}. Over Redlock every node's copy is deleted.
     *
     * @return true when any permit was held
     * @throws LockBackendException the store did not answer
     */
    boolean forceReleaseAll();
}
