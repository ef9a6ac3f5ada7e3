package dev.dlock.internal.kinds;

import dev.dlock.LockHandle;
import dev.dlock.internal.Blocking;
import dev.dlock.internal.Callbacks;
import dev.dlock.internal.settings.Validation;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A handle released at most once, from any thread: a second release fails, and a close after a
 * release does nothing. The futures it hands out are copies completed on the client's callback
 * executor ({@link Callbacks}); its blocking methods wait for dlock's own, so that a caller on
 * that executor cannot wait for itself.
 */
public abstract class ReleaseOnceHandle implements LockHandle {

    private final AtomicBoolean released = new AtomicBoolean();
    private final Callbacks callbacks;

    protected ReleaseOnceHandle(Callbacks callbacks) {
        this.callbacks = callbacks;
    }

    /** Whether {@link #release()} was called already. */
    public final boolean isReleased() {
        return released.get();
    }

    /** Where the futures handed to callers complete. */
    protected final Callbacks callbacks() {
        return callbacks;
    }

    /**
     * Releases what the handle holds, keeping it held until it has been held {@code minimumHoldNanos}
     * (0: released at once); called by the first release only.
     */
    protected abstract CompletableFuture<Void> releaseOnce(long minimumHoldNanos);

    /** What the handle is on, as a second release's failure names it: "lock 'orders'". */
    public abstract String heldThing();

    /**
     * The release (once) as dlock's own future, completed on dlock's threads: for dlock's code that
     * releases a handle without handing the future to a caller.
     */
    public final CompletableFuture<Void> giveBack(long minimumHoldNanos) {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(
                    new IllegalMonitorStateException("the handle on " + heldThing() + " was released already"));
        }
        return releaseOnce(minimumHoldNanos);
    }

    @Override
    public final void release() {
        Blocking.awaitUninterruptibly(giveBack(0));
    }

    @Override
    public final CompletableFuture<Void> releaseAsync() {
        return callbacks.copy(giveBack(0));
    }

    @Override
    public final void releaseHoldingAtLeast(Duration holdAtLeast) {
        Blocking.awaitUninterruptibly(giveBack(Validation.minimumHoldNanos(holdAtLeast)));
    }

    @Override
    public final CompletableFuture<Void> releaseHoldingAtLeastAsync(Duration holdAtLeast) {
        return callbacks.copy(giveBack(Validation.minimumHoldNanos(holdAtLeast)));
    }

    @Override
    public final void close() {
        if (!released.get()) {
            release();
        }
    }
}
