package dev.dlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant lock shared by every process that uses the same Redis, key prefix and name: the
 * plain lock ({@link LockClient#getLock(String)}), the fair lock ({@link LockClient#getFairLock(String)})
 * and either side of a read-write lock ({@link DistributedReadWriteLock}) all have this interface
 * and everything below; each kind's own rules (order, sharing) are documented where it is obtained.
 *
 * <h2>Ownership</h2>
 * The {@link Lock} methods are thread-bound: the thread that locks is the owner, may re-enter
 * (each {@code lock} needs its {@code unlock}), and only it may unlock. For holds that must cross
 * threads use the handle API ({@link #acquireAsync()}, {@link #tryAcquireAsync(Duration)}).
 *
 * <h2>Leases</h2>
 * Every hold has a lease after which Redis frees the lock by itself, so a crashed holder cannot
 * block others forever. Without an explicit lease the client's watchdog lease applies (default
 * 30 s) and is renewed every third of it while the holder's process lives. An explicit lease is
 * never renewed. A hold that outlives its lease is lost: {@link #isHeldByCurrentThread()} turns
 * false, {@link LockListener}s are told, and {@link #unlock()} throws {@link LockLostException}.
 *
 * <h2>Waiting</h2>
 * Waiters are woken by a pub/sub message when the lock is released, and retry at the latest when
 * the holder's lease ends, so a lost message costs at most one lease. Nothing polls, except that a
 * fair lock's waiters and a waiting writer also ask every third of the
 * {@linkplain LockClient.Builder#waiterTimeout(Duration) waiter timeout}, so that Redis knows they
 * still live and keeps their place.
 *
 * <h2>Failures</h2>
 * "The lock is busy" is {@code false}; "Redis did not answer" is {@link LockBackendException}.
 * When an acquire times out its outcome is unknown: dlock sends a best-effort release before
 * throwing, so nothing stays held by a caller who was told it failed.
 */
public interface DistributedLock extends Lock {

    /** The lock name given to the {@link LockClient} method that returned this lock. */
    String name();

    /**
     * Acquires, waiting without bound, with the watchdog lease. Interrupts do not stop the wait;
     * the interrupt flag is set again when this returns.
     *
     * @throws LockLostException    on re-entry into a hold that was lost
     * @throws LockBackendException Redis did not answer
     */
    @Override
    void lock();

    /** {@link #lock()} with an explicit lease that is never renewed. */
    void lock(Duration lease);

    /**
     * Acquires like {@link #lock()} but stops waiting when interrupted; then nothing is left held
     * in Redis and the InterruptedException is thrown.
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /** One attempt without waiting, with the watchdog lease. {@code false} when held elsewhere. */
    @Override
    boolean tryLock();

    /**
     * Waits up to {@code time} (zero or less: one attempt) with the watchdog lease.
     *
     * @return false when the wait ended before the lock was free
     * @throws IllegalArgumentException the wait exceeds {@link LockClient#MAX_WAIT}
     */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Waits up to {@code wait} for the lock, held for {@code lease} without renewal.
     *
     * @param wait  zero for one attempt; at most {@link LockClient#MAX_WAIT}
     * @param lease positive, at most {@link LockClient#MAX_LEASE}
     * @throws InterruptedException interrupted while waiting; nothing is left held
     */
    boolean tryLock(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Releases one hold of the current thread; the last one frees the lock and wakes a waiter.
     *
     * @throws LockLostException             the hold was lost; the current owner is untouched
     * @throws IllegalMonitorStateException  the current thread does not hold the lock
     * @throws LockBackendException          Redis did not answer; the lease will expire by itself
     */
    @Override
    void unlock();

    /** Not supported: a distributed lock has no condition queue. */
    @Override
    Condition newCondition();

    /**
     * Releases the lock whoever holds it. Its holder learns of it on its next renewal or unlock.
     * Over Redlock every node's copy is deleted.
     *
     * @return true when the lock was held (over Redlock: on a quorum of the nodes)
     */
    boolean forceUnlock();

    /** Whether anyone holds the lock now. One round trip to Redis. */
    boolean isLocked();

    /** Whether the current thread holds the lock and it is not known to be lost. No Redis call. */
    boolean isHeldByCurrentThread();

    /** The current thread's holds (0 when not held). No Redis call. */
    int getHoldCount();

    /** The lease left on the lock, whoever holds it; {@link Duration#ZERO} when free. */
    Duration remainingLease();

    /**
     * The fencing token of the current thread's hold.
     *
     * @throws IllegalMonitorStateException the current thread does not hold the lock
     */
    long fencingToken();

    /** The lock's state in Redis: holder, hold count, lease left, token. One round trip. */
    LockInfo info();

    /** Waits without bound; completes with a handle holding the lock with the watchdog lease. */
    CompletableFuture<LockHandle> acquireAsync();

    /** Waits without bound; completes with a handle holding the lock for {@code lease}. */
    CompletableFuture<LockHandle> acquireAsync(Duration lease);

    /** Completes with a handle, or empty when {@code wait} ends first; watchdog lease. */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait);

    /**
     * Completes with a handle holding the lock for {@code lease}, or empty when {@code wait} ends
     * first. Cancelling the future abandons the attempt; nothing is left held.
     */
    CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease);
}
