package dev.dlock.internal.kinds;

import dev.dlock.LockLostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A semaphore permit: the hold's {@link Handle}, and the client's place in the semaphore's gate
 * ({@link dev.dlock.internal.PermitGates}), given up once the permit is released or lost, whichever comes first.
 */
public final class PermitHandle extends ReleaseOnceHandle {

    private final Handle handle;
    private final Runnable leaveGate;
    private final AtomicBoolean left = new AtomicBoolean();

    public PermitHandle(Handle handle, Runnable leaveGate) {
        super(handle.callbacks());
        this.handle = handle;
        this.leaveGate = leaveGate;
        handle.lost().thenRun(this::leaveGate);
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
        return !isReleased() && handle.isValid();
    }

    @Override
    public Duration leaseEstimate() {
        return isReleased() ? Duration.ZERO : handle.leaseEstimate();
    }

    @Override
    public CompletableFuture<LockLostException> whenLost() {
        return handle.whenLost();
    }

    /**
     * The release is sent before the gate's next caller asks: both go out on the same connection in
     * that order, so the next acquire finds the permit free without waiting for this reply. With a
     * minimum hold the permit stays taken in the store until the minimum ends; the gate lets the
     * client's next caller ask.
     */
    @Override
    protected CompletableFuture<Void> releaseOnce(long minimumHoldNanos) {
        CompletableFuture<Void> released = handle.giveBack(minimumHoldNanos);
        leaveGate();
        return released;
    }

    @Override
    public String heldThing() {
        return "permit of semaphore '" + handle.lockName() + "'";
    }

    @Override
    public String toString() {
        return "permit " + handle;
    }
}
