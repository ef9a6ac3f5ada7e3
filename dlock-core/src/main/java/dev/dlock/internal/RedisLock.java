package dev.dlock.internal;

import dev.dlock.DistributedLock;
import dev.dlock.LockHandle;
import dev.dlock.LockInfo;
import dev.dlock.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;

/**
 * Every kind of lock ({@link LockKind}): reentrant, fair, and the two sides of a read-write lock.
 * Thread-bound holds live in the engine, keyed by kind, lock name and thread; the kind only
 * chooses the scripts, plus two rules of the read-write lock checked here: a thread that holds
 * the write lock may take the read lock (downgrade), one that holds only the read lock may not
 * take the write lock (upgrade: it would wait for itself).
 */
public final class RedisLock implements DistributedLock {

    private static final long WAIT_FOREVER = -1;

    private final LockEngine engine;
    private final LockTarget target;
    private final LockKind kind;

    RedisLock(LockEngine engine, String name, LockKind kind) {
        this.engine = engine;
        this.target = engine.target(Validation.lockName(name));
        this.kind = kind;
    }

    /** The reentrant lock of this name. */
    public static DistributedLock reentrant(LockEngine engine, String name) {
        return new RedisLock(engine, name, LockKind.REENTRANT);
    }

    /** The fair lock of this name. */
    public static DistributedLock fair(LockEngine engine, String name) {
        return new RedisLock(engine, name, LockKind.FAIR);
    }

    @Override
    public String name() {
        return target.name();
    }

    @Override
    public void lock() {
        acquireUninterruptibly(engine.watchdogLeaseMs(), true, WAIT_FOREVER);
    }

    @Override
    public void lock(Duration lease) {
        acquireUninterruptibly(Validation.leaseMillis("lease", lease), false, WAIT_FOREVER);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(engine.watchdogLeaseMs(), true, WAIT_FOREVER, true);
    }

    @Override
    public boolean tryLock() {
        return acquireUninterruptibly(engine.watchdogLeaseMs(), true, 0);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("time unit must not be null");
        }
        long waitNanos = time <= 0 ? 0 : Validation.waitNanos(time, unit);
        return acquire(engine.watchdogLeaseMs(), true, waitNanos, true);
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Validation.waitNanos(wait);
        return acquire(Validation.leaseMillis("lease", lease), false, waitNanos, true);
    }

    private boolean acquireUninterruptibly(long leaseMs, boolean renewed, long waitNanos) {
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
        String holdKey = holdKey(kind);
        Hold held = engine.threadHolds().get(holdKey);
        if (held != null) {
            reenter(held, leaseMs);
            return true;
        }
        if (kind == LockKind.WRITE && engine.threadHolds().containsKey(holdKey(LockKind.READ))) {
            throw new IllegalMonitorStateException("thread '" + Thread.currentThread().getName() + "' holds the read lock of '"
                    + name() + "' and asked for its write lock: an upgrade would wait for its own read hold forever. "
                    + "Unlock the read lock first (a writer may take the read lock, not the other way round)");
        }
        Acquisition acquisition = engine.acquire(target, kind, engine.ownerPrefix(), leaseMs, false, waitNanos,
                downgradeFrom());
        AcquireReply.Granted grant = interruptible
                ? awaitInterruptibly(acquisition)
                : Blocking.awaitUninterruptibly(acquisition.result());
        if (grant == null) {
            return false;
        }
        engine.threadHolds().put(holdKey, engine.register(acquisition, grant, renewed));
        return true;
    }

    private void reenter(Hold held, long leaseMs) {
        LockLostException loss = held.lossOrNull();
        if (loss != null) {
            throw Failures.forCaller(loss);
        }
        try {
            Blocking.awaitUninterruptibly(engine.acquire(target, kind, held.owner, leaseMs, true, 0, "").result());
        } catch (LockLostException e) {
            engine.lost(held, "it was gone when its holder re-entered (lease expired or force-released)");
            throw Failures.forCaller(held.lossOrNull());
        }
        held.count++;
    }

    /** On interrupt: stop waiting, make sure nothing stays held in Redis, then throw. */
    private AcquireReply.Granted awaitInterruptibly(Acquisition acquisition) throws InterruptedException {
        try {
            return acquisition.result().get();
        } catch (ExecutionException e) {
            throw Failures.forCaller(e);
        } catch (InterruptedException interrupt) {
            acquisition.cancel();
            long boundMs = engine.commandTimeoutMs() + 1000;
            try {
                AcquireReply.Granted raced = acquisition.result().get(boundMs, TimeUnit.MILLISECONDS);
                if (raced != null) {
                    engine.store().abandon(target, kind, acquisition.owner()).get(boundMs, TimeUnit.MILLISECONDS);
                }
            } catch (ExecutionException | TimeoutException | InterruptedException ignored) {
                // the acquire failed or hangs: Failures already sent a best-effort release
            }
            throw interrupt;
        }
    }

    @Override
    public void unlock() {
        String holdKey = holdKey(kind);
        Hold held = engine.threadHolds().get(holdKey);
        if (held == null) {
            throw new IllegalMonitorStateException(kind.label() + " '" + name() + "' is not held by the current thread '"
                    + Thread.currentThread().getName() + "'");
        }
        boolean last = held.count == 1;
        held.count--;
        if (last) {
            engine.threadHolds().remove(holdKey);
        }
        Blocking.awaitUninterruptibly(engine.release(held, last));
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
        Hold held = engine.threadHolds().get(holdKey(kind));
        return held != null && !held.isKnownInvalid();
    }

    @Override
    public int getHoldCount() {
        Hold held = engine.threadHolds().get(holdKey(kind));
        return held == null ? 0 : held.count;
    }

    @Override
    public Duration remainingLease() {
        return info().remainingLease();
    }

    @Override
    public long fencingToken() {
        Hold held = engine.threadHolds().get(holdKey(kind));
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
    public CompletableFuture<LockHandle> acquireAsync() {
        return untilAcquired(acquireHandle(engine.watchdogLeaseMs(), true, WAIT_FOREVER));
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration lease) {
        return untilAcquired(acquireHandle(Validation.leaseMillis("lease", lease), false, WAIT_FOREVER));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        return acquireHandle(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease) {
        long waitNanos = Validation.waitNanos(wait);
        return acquireHandle(Validation.leaseMillis("lease", lease), false, waitNanos);
    }

    private CompletableFuture<Optional<LockHandle>> acquireHandle(long leaseMs, boolean renewed, long waitNanos) {
        Acquisition acquisition = engine.acquire(target, kind, engine.ownerPrefix(), leaseMs, false, waitNanos, "");
        CompletableFuture<Optional<LockHandle>> handle = new CompletableFuture<>();
        acquisition.result().whenComplete((grant, error) -> {
            if (error != null) {
                handle.completeExceptionally(Failures.unwrap(error));
            } else if (grant == null) {
                handle.complete(Optional.empty());
            } else {
                Hold hold = engine.register(acquisition, grant, renewed);
                if (!handle.complete(Optional.of(new Handle(engine, hold)))) {
                    engine.release(hold, true);
                }
            }
        });
        handle.whenComplete((ignored, error) -> {
            if (handle.isCancelled()) {
                acquisition.cancel();
            }
        });
        return handle;
    }

    /** The unbounded form; cancelling the returned future cancels the acquisition. */
    private static CompletableFuture<LockHandle> untilAcquired(CompletableFuture<Optional<LockHandle>> maybe) {
        CompletableFuture<LockHandle> handle = maybe.thenApply(Optional::orElseThrow);
        handle.whenComplete((ignored, error) -> {
            if (handle.isCancelled()) {
                maybe.cancel(false);
                // granted just before the cancel: nobody will ever see this handle
                maybe.thenAccept(granted -> granted.ifPresent(LockHandle::releaseAsync));
            }
        });
        return handle;
    }

    /** The current thread's hold on this lock is filed under the kind, the lock name and the thread id. */
    private String holdKey(LockKind of) {
        return of.name() + "\n" + target.name() + "\n" + Thread.currentThread().getId();
    }

    /** Read lock: the current thread's write hold of the same name, whose owner may also read. */
    private String downgradeFrom() {
        if (kind != LockKind.READ) {
            return "";
        }
        Hold write = engine.threadHolds().get(holdKey(LockKind.WRITE));
        return write == null || write.isKnownInvalid() ? "" : write.owner;
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name() + ", " + kind.label() + "]";
    }
}
