package dev.dlock.internal;

import dev.dlock.LockHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A handle released at most once, from any thread: a second release fails, and a close after a
 * release does nothing.
 */
abstract class ReleaseOnceHandle implements LockHandle {

    private final AtomicBoolean released = new AtomicBoolean();

    /** Whether {@link #release()} was called already. */
    final boolean isReleased() {
        return released.get();
    }

    /** Releases what the handle holds; called by the first release only. */
    abstract CompletableFuture<Void> releaseOnce();

    /** What the handle is on, as a second release's failure names it: "lock 'orders'". */
    abstract String heldThing();

    @Override
    public final void release() {
        Blocking.awaitUninterruptibly(releaseAsync());
    }

    @Override
    public final CompletableFuture<Void> releaseAsync() {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("the handle on " + heldThing() + " was released already"));
        }
        return releaseOnce();
    }

    @Override
    public final void close() {
        if (!released.get()) {
            release();
        }
    }
}
