package dev.dlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant lock shared by every process that uses the same store, key prefix and name: the
 * plain lock ({@link LockClient#getLock(String)}), the fair lock ({@link LockClient#getFairLock(String)}),
 * either side of a read-write lock ({@link DistributedReadWriteLock}) and a multi-lock over several
 * names ({@link LockClient#getMultiLock(String...)}) all have this interface and everything below;
 * each kind's own rules (order, sharing) are documented where it is obtained.
 *
 * <h2>Ownership</h2>
 * The {@link Lock} methods are thread-bound: the thread that locks is the owner, may re-enter
 * (each {@code lock} needs its {@code unlock}), and only it may unlock. For holds that must cross
 * threads use the handle API ({@link #acquireAsync()}, {@link #tryAcquireAsync(Duration)}).
 *
 * <h2>Leases</h2>
 * Every hold has a lease after which the store frees the lock by itself, so a crashed holder cannot
 * block others forever. Without an explicit lease the client's watchdog lease applies (default
 * 30 s) and is renewed every third of it while the holder's process lives. An explicit lease is
 * never renewed. A hold that outlives its lease is lost.
 *
 * <h2>After a loss</h2>
 * A hold is known lost once this client has seen it end: its lease ran out on this client's clock
 * (an explicit lease's end, or a watchdog lease no renewal reached in time), a renewal, re-entry
 * or release found it gone or someone else's, or the store told the client that it was force-released.
 * From then on, for the thread that held it:
 * <ul>
 *   <li>{@link #isHeldByCurrentThread()} is false and {@link #getHoldCount()} is 0;
 *   <li>{@link LockListener}s and {@link LockHandle#whenLost()} are told, once;
 *   <li>every {@link #unlock()} still owed to the lost hold (one per {@code lock} of it, re-entries
 *       included) throws {@link LockLostException}, so a nested {@code finally} reports the loss at each
 *       level; the last of them lets go of the lost hold, and a further {@code unlock()} throws
 *       IllegalMonitorStateException as for any lock not held. The store is not touched: the lock may
 *       be someone else's by now;
 *   <li>{@link #lock()}, {@link #tryLock()} and the other acquires let go of the lost hold (its
 *       {@code unlock} is then no longer owed) and acquire afresh, as if it had never been held;
 *   <li>{@link #fencingToken()} still returns the lost hold's token until then, which a fenced
 *       resource refuses.
 * </ul>
 * So every usual idiom leaves the thread able to lock the name again: {@code try/finally unlock()}
 * (each owed unlock throws LockLostException), {@code if (isHeldByCurrentThread()) unlock()}
 * (skips the unlock), and no unlock at all. A re-entry ({@code lock()} while holding) that finds
 * the hold gone in the store throws LockLostException; the hold is then known lost as above.
 *
 * <h2>Async acquires</h2>
 * The future that {@link #acquireAsync()} and {@link #tryAcquireAsync(Duration)} return belongs to
 * the caller: completing it in any way before dlock does ({@code cancel}, {@code complete},
 * {@code completeExceptionally}, {@code orTimeout}, {@code completeOnTimeout}, {@code completeAsync},
 * {@code obtrudeValue}, {@code obtrudeException}) abandons the acquire, and a hold granted meanwhile
 * is given back at once: a caller who stopped waiting never keeps the lock. Once dlock has completed
 * it with a handle, the result cannot be replaced ({@code obtrude...} throws IllegalStateException;
 * release the handle instead). A stage made from it ({@code thenApply}, {@code copy()}, ...) is the
 * caller's own: completing that one does not reach the acquire. A thread blocked in its
 * {@code get()} that is interrupted leaves the acquire running: cancel the future then.
 *
 * <h2>Waiting</h2>
 * Waiters are woken by a pub/sub message when the lock is released, and retry at the latest when
 * the holder's lease ends, so a lost message costs at most one lease. Nothing polls, except that
 * queued waiters (a fair lock's, a waiting writer, a plain lock's on one Redis) also ask every
 * third of the {@linkplain LockClientBuilder#waiterTimeout(Duration) waiter timeout}, so that the store
 * knows they still live and keeps their place.
 *
 * <h2>Failures</h2>
 * "The lock is busy" is {@code false}; "the store did not answer" is {@link LockBackendException}.
 * An acquire that may wait rides through store outages (connection lost, timeouts, a restart):
 * it keeps trying until it is granted or its wait ends — without a wait ({@link #lock()},
 * {@link #lockInterruptibly()}, {@link #acquireAsync()}) until the client's
 * {@linkplain LockClientBuilder#outageTolerance(Duration) outage tolerance} (30 s) of unbroken
 * failure ends — and only then throws LockBackendException, saying for how long the store failed, with
 * the last failure as cause. {@link #tryLock()} makes one attempt and throws at once. When an
 * attempt times out its outcome is unknown: dlock sends a best-effort release before trying
 * again or throwing, so nothing stays held by a caller who was told it failed.
 *
 * <h2>A wait bounds the call</h2>
 * Every acquire that takes a wait ({@code tryLock} in all its forms, {@code tryLock()} as a wait of
 * zero, {@code tryAcquireAsync}) answers at the latest {@link LockClient#WAIT_OVERRUN} (1 s) after
 * its wait ends, even when the store does not answer at all (a paused server, a lost network): then
 * with a LockBackendException saying the outcome is unknown ("acquire outcome unknown for ..."), and
 * a grant the store sends later is released. The same holds for a re-entry made by these methods.
 *
 * <p>Not for implementation outside dlock: dlock's {@link LockClient} hands out its implementations, and
 * methods may be added.
 */
public interface DistributedLock extends Lock {

    /**
     * The lock's name; a multi-lock's is a label for messages, {@code multi-lock[a, b]}, and its
     * {@link #names()} say which locks it takes (every string is a legal lock name, so no label could).
     *
     * @return the name given to the {@link LockClient} method that returned this lock, or a multi-lock's label
     */
    String name();

    /**
     * The names of the locks this lock takes: its {@link #name()} alone, or a multi-lock's names, sorted.
     *
     * @return the names, unmodifiable
     */
    default List<String> names() {
        return List.of(name());
    }

    /**
     * Acquires, waiting without bound, with the watchdog lease. Interrupts do not stop the wait;
     * the interrupt flag is set again when this returns.
     *
     * @throws LockLostException      a re-entry found the hold gone in the store (see "After a loss")
     * @throws LockBackendException   the store kept failing for the whole outage tolerance; nothing is left held
     * @throws IllegalStateException  the client is closed
     */
    @Override
    void lock();

    /**
     * {@link #lock()} with an explicit lease that is never renewed.
     *
     * @param lease how long the hold lasts unless released before; positive, at most
     *              {@link LockClient#MAX_LEASE}
     * @throws IllegalArgumentException the lease is null, not positive or too long
     * @throws LockLostException        on re-entry into a hold that was lost
     * @throws LockBackendException     the store did not answer; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    void lock(Duration lease);

    /**
     * Acquires like {@link #lock()} but stops waiting when interrupted; then nothing is left held
     * in the store and the InterruptedException is thrown.
     *
     * @throws InterruptedException   interrupted before or while waiting
     * @throws LockLostException      on re-entry into a hold that was lost
     * @throws LockBackendException   the store did not answer; nothing is left held
     * @throws IllegalStateException  the client is closed
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * One attempt without waiting, with the watchdog lease.
     *
     * @return {@code true} when acquired, {@code false} when held elsewhere
     * @throws LockBackendException   the store did not answer; nothing is left held
     * @throws IllegalStateException  the client is closed
     */
    @Override
    boolean tryLock();

    /**
     * Waits up to {@code time} (zero or less: one attempt) with the watchdog lease. A wait longer than
     * {@link LockClient#MAX_WAIT} (365 days; {@code Long.MAX_VALUE} of any unit included) has no bound:
     * as {@link #lockInterruptibly()}, returning {@code true}.
     *
     * @param time how long to wait
     * @param unit the unit of {@code time}
     * @return {@code true} when acquired, {@code false} when the wait ended before the lock was free
     * @throws InterruptedException     interrupted while waiting; nothing is left held
     * @throws IllegalArgumentException the unit is null
     * @throws LockBackendException     the store was still failing when the wait ended; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * {@link #tryLock(long, TimeUnit)} with the wait as a Duration.
     *
     * @param wait zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @return {@code true} when acquired, {@code false} when the wait ended before the lock was free
     * @throws InterruptedException     interrupted while waiting; nothing is left held
     * @throws IllegalArgumentException the wait is null or negative
     * @throws LockBackendException     the store was still failing when the wait ended; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    boolean tryLock(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for the lock, held for {@code lease} without renewal.
     *
     * @param wait  zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return {@code true} when acquired, {@code false} when the wait ended before the lock was free
     * @throws InterruptedException     interrupted while waiting; nothing is left held
     * @throws IllegalArgumentException the wait or lease is null or out of range
     * @throws LockBackendException     the store did not answer; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    boolean tryLock(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Releases one hold of the current thread; the last one frees the lock and wakes a waiter.
     *
     * @throws LockLostException             the hold is known lost (at each unlock it is owed; see "After a
     *                                       loss"), or the release found it lost; the current owner is untouched
     * @throws IllegalMonitorStateException  the current thread does not hold the lock
     * @throws LockBackendException          the store did not answer; the lease will expire by itself
     */
    @Override
    void unlock();

    /**
     * Releases one hold of the current thread; the last one keeps the lock held until it has been
     * held for {@code holdAtLeast}: given back earlier, the lock stays held in the store for what is left
     * of that time (its lease is set to it, and no longer renewed), then frees itself, and no one
     * takes it meanwhile, this thread included. Given back later, the same as {@link #unlock()}. The
     * time counts from when the outermost acquire returned, so the lock is held at least that long.
     * For a job that must not run twice within a period, wherever it starts late (ShedLock's "lock
     * at least for"). The thread no longer holds the lock once this returns or throws.
     *
     * @param holdAtLeast how long the hold lasts at least, from its acquire; zero for a plain
     *                    unlock; at most {@link LockClient#MAX_LEASE}
     * @throws IllegalArgumentException      the duration is null, negative or too long; nothing is released
     * @throws LockLostException             as for {@link #unlock()}
     * @throws IllegalMonitorStateException  the current thread does not hold the lock
     * @throws LockBackendException          the store did not answer (over Redlock: no quorum); the hold
     *                                       stays until its lease ends
     */
    void unlockHoldingAtLeast(Duration holdAtLeast);

    /**
     * Not supported: a distributed lock has no condition queue.
     *
     * @return never returns
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();

    /**
     * Releases the lock whoever holds it. Its holder's client is told at once (a message on its
     * holder channel) and marks the hold lost; should that message be lost, the holder learns of it
     * on its next renewal or unlock.
     * Over Redlock every node's copy is deleted.
     *
     * @return true when the lock was held (over Redlock: on a quorum of the nodes)
     * @throws LockBackendException the store did not answer (over Redlock: not a quorum of the nodes)
     */
    boolean forceUnlock();

    /**
     * Whether anyone holds the lock now. One round trip to the store.
     *
     * @return {@code true} when some client holds it
     * @throws LockBackendException the store did not answer
     */
    boolean isLocked();

    /**
     * Whether the current thread holds the lock and it is not known to be lost. No store call.
     *
     * @return {@code true} when the current thread holds it
     */
    boolean isHeldByCurrentThread();

    /**
     * The current thread's holds. No store call.
     *
     * @return how many times the current thread holds the lock; 0 when it does not or its hold is
     *         known to be lost (as {@link #isHeldByCurrentThread()})
     */
    int getHoldCount();

    /**
     * The lease left on the lock, whoever holds it. One round trip to the store.
     *
     * @return the time left; {@link Duration#ZERO} when the lock is free
     * @throws LockBackendException the store did not answer
     */
    Duration remainingLease();

    /**
     * The fencing token of the current thread's hold; after a loss, the lost hold's until the thread
     * unlocks or locks again. No store call.
     *
     * @return the token, greater than every token handed out before for this name
     * @throws IllegalMonitorStateException the current thread does not hold the lock
     */
    long fencingToken();

    /**
     * The lock's state in the store: holder, hold count, lease left, token. One round trip.
     *
     * @return a snapshot of the lock
     * @throws LockBackendException the store did not answer
     */
    LockInfo info();

    /**
     * Waits without bound for a hold with the watchdog lease, owned by the returned handle (which
     * any thread may release; the hold is not the calling thread's, so this does not re-enter a hold
     * of the thread but waits for it). The blocking form of {@link #acquireAsync()}, for code on
     * virtual threads that wants a handle.
     *
     * @return the handle
     * @throws InterruptedException  interrupted before or while waiting; a hold granted as the
     *                               interrupt came is given back
     * @throws LockBackendException  the store kept failing for the whole outage tolerance; nothing is left held
     * @throws IllegalStateException the client is closed
     */
    LockHandle acquire() throws InterruptedException;

    /**
     * {@link #acquire()} for a hold of {@code lease}, never renewed.
     *
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return the handle
     * @throws InterruptedException     interrupted before or while waiting; a hold granted as the
     *                                  interrupt came is given back
     * @throws IllegalArgumentException the lease is null, not positive or too long
     * @throws LockBackendException     the store kept failing for the whole outage tolerance; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    LockHandle acquire(Duration lease) throws InterruptedException;

    /**
     * {@link #acquire()} that ignores interrupts; the interrupt flag is set again when it returns.
     *
     * @return the handle
     * @throws LockBackendException  the store kept failing for the whole outage tolerance; nothing is left held
     * @throws IllegalStateException the client is closed
     */
    LockHandle acquireUninterruptibly();

    /**
     * One attempt without waiting for a hold with the watchdog lease, owned by the returned handle.
     *
     * @return the handle, or empty when the lock is held elsewhere
     * @throws LockBackendException  the store did not answer; nothing is left held
     * @throws IllegalStateException the client is closed
     */
    Optional<LockHandle> tryAcquire();

    /**
     * Waits up to {@code wait} for a hold with the watchdog lease, owned by the returned handle; the
     * blocking form of {@link #tryAcquireAsync(Duration)}.
     *
     * @param wait zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @return the handle, or empty when the wait ended first
     * @throws InterruptedException     interrupted before or while waiting; a hold granted as the
     *                                  interrupt came is given back
     * @throws IllegalArgumentException the wait is null or negative
     * @throws LockBackendException     the store was still failing when the wait ended; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for a hold of {@code lease}, never renewed, owned by the returned
     * handle; the blocking form of {@link #tryAcquireAsync(Duration, Duration)}.
     *
     * @param wait  zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return the handle, or empty when the wait ended first
     * @throws InterruptedException     interrupted before or while waiting; a hold granted as the
     *                                  interrupt came is given back
     * @throws IllegalArgumentException the wait or lease is null or out of range
     * @throws LockBackendException     the store was still failing when the wait ended; nothing is left held
     * @throws IllegalStateException    the client is closed
     */
    Optional<LockHandle> tryAcquire(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Waits without bound for a hold with the watchdog lease, owned by the returned handle.
     * Completing the future yourself abandons the acquire (see "Async acquires").
     *
     * @return completes with the handle; completes exceptionally with {@link LockBackendException}
     *         when the store does not answer
     * @throws IllegalStateException the client is closed
     */
    CompletableFuture<LockHandle> acquireAsync();

    /**
     * Waits without bound for a hold of {@code lease}, never renewed, owned by the returned handle.
     * Completing the future yourself abandons the acquire (see "Async acquires").
     *
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return completes with the handle; completes exceptionally with {@link LockBackendException}
     *         when the store does not answer
     * @throws IllegalArgumentException the lease is null, not positive or too long
     * @throws IllegalStateException    the client is closed
     */
    CompletableFuture<LockHandle> acquireAsync(Duration lease);

    /**
     * Waits up to {@code wait} for a hold with the watchdog lease, owned by the returned handle.
     * Completing the future yourself abandons the acquire (see "Async acquires").
     *
     * @param wait zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @return completes with the handle, or empty when {@code wait} ends first; completes
     *         exceptionally with {@link LockBackendException} when the store does not answer
     * @throws IllegalArgumentException the wait is null or negative
     * @throws IllegalStateException    the client is closed
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait);

    /**
     * Waits up to {@code wait} for a hold of {@code lease}, never renewed, owned by the returned
     * handle. Completing the future yourself abandons the acquire (see "Async acquires").
     *
     * @param wait  zero for one attempt; longer than {@link LockClient#MAX_WAIT}: without bound
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @return completes with the handle, or empty when {@code wait} ends first; completes
     *         exceptionally with {@link LockBackendException} when the store does not answer
     * @throws IllegalArgumentException the wait or lease is null or out of range
     * @throws IllegalStateException    the client is closed
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease);
}
