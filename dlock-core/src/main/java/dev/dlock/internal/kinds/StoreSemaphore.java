package dev.dlock.internal.kinds;

import dev.dlock.DistributedSemaphore;
import dev.dlock.LockHandle;
import dev.dlock.LockInfo;
import dev.dlock.internal.Blocking;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.settings.Validation;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A semaphore: each permit a hold of kind {@link LockKind#PERMIT} owned by a {@link Handle}, taken
 * through the one acquire loop ({@link Acquisition}) and renewed by the watchdog like any hold;
 * semaphore_acquire.lua and semaphore_release.lua keep the count in Redis.
 */
public final class StoreSemaphore implements DistributedSemaphore {

    private static final long WAIT_FOREVER = -1;

    private final LockEngine engine;
    private final LockTarget target;
    private final int permits;

    public StoreSemaphore(LockEngine engine, String name, int permits) {
        this.engine = engine;
        this.target = engine.target(Validation.lockName(name));
        this.permits = Validation.permits(permits);
    }

    @Override
    public String name() {
        return target.name();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        return awaitInterruptibly(engine.watchdogLeaseMs(), true, WAIT_FOREVER).orElseThrow();
    }

    @Override
    public LockHandle acquire(Duration lease) throws InterruptedException {
        return awaitInterruptibly(Validation.leaseMillis("lease", lease), false, WAIT_FOREVER).orElseThrow();
    }

    @Override
    public LockHandle acquireUninterruptibly() {
        return Blocking.awaitUninterruptibly(start(engine.watchdogLeaseMs(), true, WAIT_FOREVER).result()).orElseThrow();
    }

    @Override
    public Optional<LockHandle> tryAcquire() {
        return Blocking.awaitUninterruptibly(start(engine.watchdogLeaseMs(), true, 0).result());
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException {
        return awaitInterruptibly(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait));
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Validation.waitNanos(wait);
        return awaitInterruptibly(Validation.leaseMillis("lease", lease), false, waitNanos);
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync() {
        return engine.callbacks().handle(HandleAcquire.untilAcquired(start(engine.watchdogLeaseMs(), true, WAIT_FOREVER).result()));
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration lease) {
        long leaseMs = Validation.leaseMillis("lease", lease);
        return engine.callbacks().handle(HandleAcquire.untilAcquired(start(leaseMs, false, WAIT_FOREVER).result()));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        return engine.callbacks().maybeHandle(start(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait)).result());
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease) {
        long waitNanos = Validation.waitNanos(wait);
        return engine.callbacks().maybeHandle(start(Validation.leaseMillis("lease", lease), false, waitNanos).result());
    }

    private PermitAcquire start(long leaseMs, boolean renewed, long waitNanos) {
        return new PermitAcquire(engine, target, permits, leaseMs, renewed, waitNanos).start();
    }

    /** On interrupt: stop waiting, give back a permit that raced the interrupt, then throw. */
    private Optional<LockHandle> awaitInterruptibly(long leaseMs, boolean renewed, long waitNanos)
            throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring a permit of semaphore '" + name() + "'");
        }
        PermitAcquire started = start(leaseMs, renewed, waitNanos);
        try {
            return started.result().get();
        } catch (ExecutionException e) {
            throw Failures.forCaller(e);
        } catch (InterruptedException interrupt) {
            started.cancel();
            try {
                started.result().get(engine.closeBoundMs(), TimeUnit.MILLISECONDS)
                        .ifPresent(LockHandle::release);
            } catch (ExecutionException | TimeoutException | InterruptedException | RuntimeException ignored) {
                // the acquire failed or hangs (a best-effort release was sent), or the raced permit's
                // release failed: its lease frees it
            }
            throw interrupt;
        }
    }

    @Override
    public void release(LockHandle permit) {
        if (!(permit instanceof PermitHandle held) || !held.handle().isOf(engine, LockKind.PERMIT, target)) {
            throw new IllegalMonitorStateException(permit + " is not a permit of semaphore '" + name()
                    + "' taken through this client");
        }
        if (held.isReleased()) {
            throw new IllegalMonitorStateException(permit + " of semaphore '" + name() + "' was released already");
        }
        held.release();
    }

    @Override
    public int availablePermits() {
        LockInfo info = info();
        int stored = info.permits() > 0 ? info.permits() : permits;
        return Math.max(0, stored - info.holds().size());
    }

    @Override
    public LockInfo info() {
        return Blocking.awaitUninterruptibly(engine.inspect(target, LockKind.PERMIT));
    }

    @Override
    public boolean forceReleaseAll() {
        return Blocking.awaitUninterruptibly(engine.forceRelease(target));
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + name() + ", " + permits + " permits]";
    }
}
