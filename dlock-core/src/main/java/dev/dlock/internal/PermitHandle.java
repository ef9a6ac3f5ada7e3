package dev.dlock.internal;

import dev.dlock.LockHandle;
import dev.dlock.LockLostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A semaphore permit: the hold's {@link Handle}, and the client's place in the semaphore's gate
 * ({@link PermitGates}), given up once the permit is released or lost, whichever comes first.
 */
public final class PermitHandle implements LockHandle {

    private final Handle handle;
    private final Runnable leaveGate;
    private final AtomicBoolean left = new AtomicBoolean();

    public PermitHandle(Handle handle, Runnable leaveGate) {
        this.handle = handle;
        this.leaveGate = leaveGate;
        handle.whenLost().thenRun(this::leaveGate);
    }

    public Handle handle() {
        return handle;
    }

    private void leaveGate() {
        if (left.compareAndSet(false, true)) {
            leaveGate.run();
        }
    }

    @Override
    public String lockName() {
        return handle.lockName();
    }

    @Override
    public long fencingToken() {
        return handle.fencingToken();
    }

    @Override
    public boolean isValid() {
        return handle.isValid();
    }

    @Override
    public Duration remainingLease() {
        return handle.remainingLease();
    }

    @Override
    public CompletableFuture<LockLostException> whenLost() {
        return handle.whenLost();
    }

    @Override
    public void release() {
        Blocking.awaitUninterruptibly(releaseAsync());
    }

    /**
     * The release is sent before the gate's next caller asks: both go out on the same connection in
     * that order, so the next acquire finds the permit free without waiting for this reply.
     */
    @Override
    public CompletableFuture<Void> releaseAsync() {
        CompletableFuture<Void> released = handle.releaseAsync();
        leaveGate();
        return released;
    }

    @Override
    public void releaseHoldingAtLeast(Duration holdAtLeast) {
        Blocking.awaitUninterruptibly(releaseHoldingAtLeastAsync(holdAtLeast));
    }

    /** The permit stays taken in Redis until the minimum ends; the gate lets the client's next caller ask. */
    @Override
    public CompletableFuture<Void> releaseHoldingAtLeastAsync(Duration holdAtLeast) {
        CompletableFuture<Void> released = handle.releaseHoldingAtLeastAsync(holdAtLeast);
        leaveGate();
        return released;
    }

    @Override
    public void close() {
        if (!handle.isReleased()) {
            release();
        }
    }

    @Override
    public String toString() {
        return "permit " + handle;
    }
}
