package dev.dlock.internal;

import dev.dlock.LockHandle;
import dev.dlock.LockLostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** A hold owned by a handle rather than a thread; released from any thread. */
final class Handle implements LockHandle {

    private final LockEngine engine;
    private final Hold hold;
    private final AtomicBoolean released = new AtomicBoolean();

    Handle(LockEngine engine, Hold hold) {
        this.engine = engine;
        this.hold = hold;
    }

    /** Whether this handle holds a hold of the kind on the key, taken through the engine's client. */
    boolean isOf(LockEngine owner, LockKind kind, LockTarget target) {
        return engine == owner && hold.kind == kind && hold.target.key().equals(target.key());
    }

    /** Whether {@link #release()} was called already. */
    boolean isReleased() {
        return released.get();
    }

    @Override
    public String lockName() {
        return hold.name;
    }

    @Override
    public long fencingToken() {
        return hold.token;
    }

    @Override
    public boolean isValid() {
        return !released.get() && !hold.isKnownInvalid();
    }

    @Override
    public Duration remainingLease() {
        if (!isValid()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(hold.remainingNanos());
    }

    @Override
    public CompletableFuture<LockLostException> whenLost() {
        return hold.whenLost();
    }

    @Override
    public void release() {
        Blocking.awaitUninterruptibly(releaseAsync());
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("the handle on lock '" + hold.name + "' was released already"));
        }
        return engine.release(hold, true);
    }

    @Override
    public void close() {
        if (!released.get()) {
            release();
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + hold.name + ", token " + hold.token + (isValid() ? "" : ", no longer held") + "]";
    }
}
