package dev.dlock.internal.kinds;

import dev.dlock.LockHandle;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.PermitGates;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquire of a semaphore permit: first a place in the client's gate of the semaphore
 * ({@link PermitGates}), then the acquire loop for a hold of kind {@link LockKind#PERMIT}, both
 * within the one wait; the permit's handle gives the place back when it is released or lost.
 * {@link #result()} completes with the permit, or empty when the wait ended or was cancelled.
 */
public final class PermitAcquire {

    private final LockEngine engine;
    private final LockTarget target;
    private final int permits;
    private final long leaseMs;
    private final boolean renewed;
    private final long waitNanos;
    private final String gateKey;
    private final CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
    private volatile CompletableFuture<Void> entry;
    private volatile Acquisition acquisition;
    /** Ends the wait at the gate when the wait runs out there; cancelled once admitted. */
    private volatile ScheduledFuture<?> gateTimer;
    private volatile boolean cancelled;

    /** @param waitNanos how long to wait; negative: without bound */
    public PermitAcquire(LockEngine engine, LockTarget target, int permits, long leaseMs, boolean renewed, long waitNanos) {
        this.engine = engine;
        this.target = target;
        this.permits = permits;
        this.leaseMs = leaseMs;
        this.renewed = renewed;
        this.waitNanos = waitNanos;
        this.gateKey = PermitGates.key(target, permits);
    }

    /** @throws IllegalStateException the client is closed */
    public PermitAcquire start() {
        engine.requireOpen();
        long startNanos = engine.ticker().nanoTime();
        entry = engine.permitGates().enter(gateKey, permits);
        entry.thenRun(() -> admitted(startNanos));
        if (!entry.isDone()) {
            if (waitNanos == 0) {
                // this client has as many acquisitions under way or holding as there are permits
                stopWaitingAtTheGate();
            } else if (waitNanos > 0) {
                gateTimer = engine.ticker().schedule(this::stopWaitingAtTheGate, waitNanos, TimeUnit.NANOSECONDS);
                if (entry.isDone()) {
                    gateTimer.cancel(false);
                }
            }
        }
        result.whenComplete((ignored, error) -> {
            if (result.isCancelled()) {
                cancel();
            }
        });
        return this;
    }

    public CompletableFuture<Optional<LockHandle>> result() {
        return result;
    }

    /** Stops waiting, at the gate or in the acquire loop; a permit granted meanwhile is given back. */
    public void cancel() {
        cancelled = true;
        stopWaitingAtTheGate();
        Acquisition started = acquisition;
        if (started != null) {
            started.cancel();
        }
    }

    /** Not admitted yet: never will be. Admitted already: {@link #admitted} goes on (or stops). */
    private void stopWaitingAtTheGate() {
        if (entry.cancel(false)) {
            result.complete(Optional.empty());
        }
    }

    private void admitted(long startNanos) {
        ScheduledFuture<?> timer = gateTimer;
        if (timer != null) {
            timer.cancel(false);
        }
        if (cancelled) {
            leaveGate();
            result.complete(Optional.empty());
            return;
        }
        long remaining = waitNanos < 0 ? -1 : Math.max(0, waitNanos - (engine.ticker().nanoTime() - startNanos));
        Acquisition started;
        try {
            started = engine.acquirePermit(target, permits, leaseMs, remaining);
        } catch (RuntimeException closed) {
            leaveGate();
            result.completeExceptionally(closed);
            return;
        }
        acquisition = started;
        if (cancelled) {
            started.cancel();
        }
        HandleAcquire.start(engine, started, renewed).whenComplete((granted, error) -> {
            if (error != null || granted.isEmpty()) {
                leaveGate();
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(Optional.empty());
                }
                return;
            }
            PermitHandle permit = new PermitHandle((Handle) granted.get(), this::leaveGate);
            if (!result.complete(Optional.of(permit))) {
                permit.releaseAsync();
            }
        });
    }

    private void leaveGate() {
        engine.permitGates().leave(gateKey);
    }
}
