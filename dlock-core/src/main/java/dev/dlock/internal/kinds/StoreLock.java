package dev.dlock.internal.kinds;

import dev.dlock.DistributedLock;
import dev.dlock.LockHandle;
import dev.dlock.LockInfo;
import dev.dlock.LockLostException;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.Blocking;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.settings.Validation;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * Every kind of lock ({@link LockKind}): reentrant, fair, and the two sides of a read-write lock.
 * Thread-bound holds live in the client's {@link HoldRegistry}, filed by kind, lock name and
 * thread. The kind chooses the scripts and two rules between holds of one thread, applied here:
 * the kind whose hold it may share an owner with ({@link LockKind#sharesOwnerWith()}: a read
 * lock taken by the writer, a downgrade) and the kind whose hold refuses it
 * ({@link LockKind#refusedWhileHolding()}: a write lock asked for by a reader, an upgrade that
 * would wait for itself).
 */
public final class StoreLock implements DistributedLock {

    private static final long WAIT_FOREVER = -1;

    private final LockEngine engine;
    private final LockTarget target;
    private final LockKind kind;

    public StoreLock(LockEngine engine, String name, LockKind kind) {
        this.engine = engine;
        this.target = engine.target(Validation.lockName(name));
        this.kind = kind;
    }

    /** The reentrant lock of this name. */
    public static DistributedLock reentrant(LockEngine engine, String name) {
        return new StoreLock(engine, name, LockKind.REENTRANT);
    }

    /** The fair lock of this name. */
    public static DistributedLock fair(LockEngine engine, String name) {
        return new StoreLock(engine, name, LockKind.FAIR);
    }

    @Override
    public String name() {
        return target.name();
    }

    @Override
    public void lock() {
        lockUninterruptibly(engine.watchdogLeaseMs(), true, WAIT_FOREVER);
    }

    @Override
    public void lock(Duration lease) {
        lockUninterruptibly(Validation.leaseMillis("lease", lease), false, WAIT_FOREVER);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(engine.watchdogLeaseMs(), true, WAIT_FOREVER, true);
    }

    @Override
    public boolean tryLock() {
        return lockUninterruptibly(engine.watchdogLeaseMs(), true, 0);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquire(engine.watchdogLeaseMs(), true, Validation.waitNanos(time, unit), true);
    }

    @Override
    public boolean tryLock(Duration wait) throws InterruptedException {
        return acquire(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait), true);
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Validation.waitNanos(wait);
        return acquire(Validation.leaseMillis("lease", lease), false, waitNanos, true);
    }

    private boolean lockUninterruptibly(long leaseMs, boolean renewed, long waitNanos) {
        try {
            return acquire(leaseMs, renewed, waitNanos, false);
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible acquire was interrupted", e);
        }
    }

    private boolean acquire(long leaseMs, boolean renewed, long waitNanos, boolean interruptible)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name() + "'");
        }
        Hold held = liveThreadHold(kind);
        if (held != null) {
            reenter(held, leaseMs, waitNanos);
            return true;
        }
        LockKind refusing = kind.refusedWhileHolding();
        if (refusing != null && liveThreadHold(refusing) != null) {
            throw new IllegalMonitorStateException("thread '" + Thread.currentThread().getName() + "' holds the "
                    + refusing.label() + " of '" + name() + "' and asked for its " + kind.label() + ": an upgrade would "
                    + "wait for its own " + refusing.label() + " forever. Unlock the "
                    + refusing.label() + " first (a writer may take the read lock, not the other way round)");
        }
        Acquisition acquisition = engine.acquire(target, kind, leaseMs, waitNanos, downgradeFrom());
        AcquireReply.Granted grant = interruptible
                ? awaitInterruptibly(acquisition)
                : Blocking.awaitUninterruptibly(acquisition.result());
        if (grant == null) {
            return false;
        }
        engine.holds().bindToCurrentThread(engine.register(acquisition, grant, renewed));
        return true;
    }

    private void reenter(Hold held, long leaseMs, long waitNanos) {
        try {
            Blocking.awaitUninterruptibly(engine.reenter(held, leaseMs, waitNanos).result());
        } catch (LockLostException e) {
            engine.lost(held, LossCause.GONE, "it was gone when its holder re-entered (lease expired or force-released)");
            throw Failures.forCaller(held.lossOrNull());
        }
        held.count++;
    }

    /** On interrupt: stop waiting, make sure nothing stays held in the store, then throw. */
    private AcquireReply.Granted awaitInterruptibly(Acquisition acquisition) throws InterruptedException {
        return Blocking.awaitInterruptibly(acquisition.result(), acquisition::cancel,
                raced -> engine.abandon(target, kind, acquisition.attempts().owner()), engine.closeBoundMs());
    }

    @Override
    public void unlock() {
        Blocking.awaitUninterruptibly(unlock(0));
    }

    @Override
    public void unlockHoldingAtLeast(Duration holdAtLeast) {
        Blocking.awaitUninterruptibly(unlock(Validation.minimumHoldNanos(holdAtLeast)));
    }

    /**
     * {@link #unlock()} that does not wait for the store: the thread lets go at once, the future
     * completes when the store answered (for a multi-lock's give-back, which bounds that wait).
     */
    CompletableFuture<Void> startUnlock() {
        return unlock(0);
    }

    private CompletableFuture<Void> unlock(long minimumHoldNanos) {
        Hold held = threadHold(kind);
        if (held == null) {
            throw new IllegalMonitorStateException(kind.label() + " '" + name() + "' is not held by the current thread '"
                    + Thread.currentThread().getName() + "'");
        }
        if (knownLost(held)) {
            // every unlock owed to the lost hold (one per lock) reports the loss; the last lets go of it
            held.count--;
            if (held.count <= 0) {
                engine.holds().unbindFromCurrentThread(held);
            }
            throw Failures.forCaller(held.lossOrNull());
        }
        boolean last = held.count == 1;
        held.count--;
        if (last) {
            engine.holds().unbindFromCurrentThread(held);
        }
        return engine.release(held, last, minimumHoldNanos);
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("dlock locks have no Condition: await() would have to release the "
                + "lock and wait for a signal atomically across processes, which Redis cannot do; signal with a "
                + "queue or pub/sub outside the lock instead");
    }

    @Override
    public boolean forceUnlock() {
        return Blocking.awaitUninterruptibly(engine.forceRelease(target));
    }

    @Override
    public boolean isLocked() {
        return info().isLocked();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        Hold held = threadHold(kind);
        return held != null && !knownLost(held);
    }

    @Override
    public int getHoldCount() {
        Hold held = threadHold(kind);
        return held == null || knownLost(held) ? 0 : held.count;
    }

    @Override
    public Duration remainingLease() {
        return info().remainingLease();
    }

    @Override
    public long fencingToken() {
        Hold held = threadHold(kind);
        if (held == null) {
            throw new IllegalMonitorStateException(kind.label() + " '" + name() + "' is not held by the current thread '"
                    + Thread.currentThread().getName() + "', so it has no fencing token");
        }
        return held.token;
    }

    @Override
    public LockInfo info() {
        return Blocking.awaitUninterruptibly(engine.inspect(target, kind));
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        return acquireHandle(engine.watchdogLeaseMs(), true, WAIT_FOREVER, true).orElseThrow();
    }

    @Override
    public LockHandle acquire(Duration lease) throws InterruptedException {
        return acquireHandle(Validation.leaseMillis("lease", lease), false, WAIT_FOREVER, true).orElseThrow();
    }

    @Override
    public LockHandle acquireUninterruptibly() {
        return handleUninterruptibly(engine.watchdogLeaseMs(), true, WAIT_FOREVER).orElseThrow();
    }

    @Override
    public Optional<LockHandle> tryAcquire() {
        return handleUninterruptibly(engine.watchdogLeaseMs(), true, 0);
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException {
        return acquireHandle(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait), true);
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Validation.waitNanos(wait);
        return acquireHandle(Validation.leaseMillis("lease", lease), false, waitNanos, true);
    }

    private Optional<LockHandle> handleUninterruptibly(long leaseMs, boolean renewed, long waitNanos) {
        try {
            return acquireHandle(leaseMs, renewed, waitNanos, false);
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible acquire was interrupted", e);
        }
    }

    /**
     * A hold owned by a handle, as the async forms take it (not the thread's, so no re-entry), awaited
     * on the caller's thread: interrupted, the wait stops and a grant that raced the interrupt is
     * given back before the interrupt is thrown.
     */
    private Optional<LockHandle> acquireHandle(long leaseMs, boolean renewed, long waitNanos, boolean interruptible)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name() + "'");
        }
        Acquisition acquisition = engine.acquire(target, kind, leaseMs, waitNanos, "");
        AcquireReply.Granted grant = interruptible
                ? awaitInterruptibly(acquisition)
                : Blocking.awaitUninterruptibly(acquisition.result());
        return grant == null ? Optional.empty() : Optional.of(new Handle(engine, engine.register(acquisition, grant, renewed)));
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync() {
        return engine.callbacks().handle(HandleAcquire.untilAcquired(startHandle(engine.watchdogLeaseMs(), true, WAIT_FOREVER)));
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration lease) {
        long leaseMs = Validation.leaseMillis("lease", lease);
        return engine.callbacks().handle(HandleAcquire.untilAcquired(startHandle(leaseMs, false, WAIT_FOREVER)));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        return engine.callbacks().maybeHandle(startHandle(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait)));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease) {
        long waitNanos = Validation.waitNanos(wait);
        return engine.callbacks().maybeHandle(startHandle(Validation.leaseMillis("lease", lease), false, waitNanos));
    }

    /**
     * Starts a handle's acquire; the future is dlock's own, completed on its threads.
     *
     * @param waitNanos how long to wait; negative: without bound
     */
    CompletableFuture<Optional<LockHandle>> startHandle(long leaseMs, boolean renewed, long waitNanos) {
        return HandleAcquire.start(engine, target, kind, leaseMs, renewed, waitNanos);
    }

    /** The current thread's hold of this name and the given kind, lost or not, or null. */
    private Hold threadHold(LockKind of) {
        return engine.holds().ofCurrentThread(of, target.name());
    }

    /**
     * For an acquire: the current thread's hold of this name and kind that is not known lost, or
     * null. A lost hold found here is dropped from the thread, so that the thread locks the name
     * afresh at once, whether or not it ever called unlock.
     */
    private Hold liveThreadHold(LockKind of) {
        Hold held = threadHold(of);
        if (held != null && knownLost(held)) {
            engine.holds().unbindFromCurrentThread(held);
            return null;
        }
        return held;
    }

    /**
     * Whether the hold is known lost; a hold whose validity ran out on this client's clock is
     * declared lost here, without waiting for Redis or the watchdog to say so.
     */
    private boolean knownLost(Hold held) {
        if (held.lossOrNull() == null && held.isKnownInvalid()) {
            engine.lost(held, LossCause.EXPIRED, "its lease ran out on this client's clock");
        }
        return held.lossOrNull() != null;
    }

    /** The owner id of the current thread's hold that this kind may share (a downgrade), else "". */
    private String downgradeFrom() {
        LockKind sharing = kind.sharesOwnerWith();
        Hold shared = sharing == null ? null : threadHold(sharing);
        return shared == null || shared.isKnownInvalid() ? "" : shared.owner;
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name() + ", " + kind.label() + "]";
    }
}
