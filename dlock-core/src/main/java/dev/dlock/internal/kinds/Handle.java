package dev.dlock.internal.kinds;

import dev.dlock.LockLostException;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A hold owned by a handle rather than a thread; released from any thread. */
public final class Handle extends ReleaseOnceHandle {

    private final LockEngine engine;
    private final Hold hold;

    public Handle(LockEngine engine, Hold hold) {
        super(engine.callbacks());
        this.engine = engine;
        this.hold = hold;
    }

    /** Whether this handle holds a hold of the kind on the key, taken through the engine's client. */
    public boolean isOf(LockEngine owner, LockKind kind, LockTarget target) {
        return engine == owner && hold.kind == kind && hold.target.key().equals(target.key());
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
        return !isReleased() && !hold.isKnownInvalid();
    }

    @Override
    public Duration leaseEstimate() {
        if (!isValid()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(hold.remainingNanos());
    }

    /** A copy: a caller that cancels or completes it changes nothing of the hold. */
    @Override
    public CompletableFuture<LockLostException> whenLost() {
        return callbacks().copy(hold.whenLost());
    }

    /** The hold's own loss future, completed on dlock's threads: for dlock's code. */
    CompletableFuture<LockLostException> lost() {
        return hold.whenLost();
    }

    @Override
    protected CompletableFuture<Void> releaseOnce(long minimumHoldNanos) {
        return engine.release(hold, true, minimumHoldNanos);
    }

    @Override
    public String heldThing() {
        return "lock '" + hold.name + "'";
    }

    @Override
    public String toString() {
        return "LockHandle[" + hold.name + ", token " + hold.token + (isValid() ? "" : ", no longer held") + "]";
    }
}
