package dev.dlock.internal;

import dev.dlock.LockHandle;
import dev.dlock.internal.settings.Validation;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A handle released at most once, from any thread: a second release fails, and a close after a
 * release does nothing.
 */
public abstract class ReleaseOnceHandle implements LockHandle {

    private final AtomicBoolean released = new AtomicBoolean();

    /** Whether {@link #release()} was called already. */
    public final boolean isReleased() {
        return released.get();
    }

    /**
     * Releases what the handle holds, keeping it held until it has been held {@code minimumHoldNanos}
     * (0: released at once); called by the first release only.
     */
    public abstract CompletableFuture<Void> releaseOnce(long minimumHoldNanos);

    /** What the handle is on, as a second release's failure names it: "lock 'orders'". */
    public abstract String heldThing();

    @Override
    public final void release() {
        Blocking.awaitUninterruptibly(releaseAsync());
    }

    @Override
    public final CompletableFuture<Void> releaseAsync() {
        return releaseOnceHoldingAtLeast(0);
    }

    @Override
    public final void releaseHoldingAtLeast(Duration holdAtLeast) {
        Blocking.awaitUninterruptibly(releaseHoldingAtLeastAsync(holdAtLeast));
    }

    @Override
    public final CompletableFuture<Void> releaseHoldingAtLeastAsync(Duration holdAtLeast) {
        return releaseOnceHoldingAtLeast(Validation.minimumHoldNanos(holdAtLeast));
    }

    private CompletableFuture<Void> releaseOnceHoldingAtLeast(long minimumHoldNanos) {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("the handle on " + heldThing() + " was released already"));
        }
        return releaseOnce(minimumHoldNanos);
    }

    @Override
    public final void close() {
        if (!released.get()) {
            release();
        }
    }
}
