package dev.dlock.internal.kinds;

import dev.dlock.LockHandle;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The handle API's acquires: not bound to a thread, the hold ends up in a {@link Handle}. */
public final class HandleAcquire {

    private HandleAcquire() {
    }

    /** Starts an acquisition for a handle; cancelling the returned future cancels the acquisition. */
    public static CompletableFuture<Optional<LockHandle>> start(LockEngine engine, LockTarget target, LockKind kind, long leaseMs,
                                                         boolean renewed, long waitNanos) {
        return start(engine, engine.acquire(target, kind, leaseMs, waitNanos, ""), renewed);
    }

    /** Hands the started acquisition's grant to a handle; cancelling the returned future cancels the acquisition. */
    public static CompletableFuture<Optional<LockHandle>> start(LockEngine engine, Acquisition acquisition, boolean renewed) {
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
    public static CompletableFuture<LockHandle> untilAcquired(CompletableFuture<Optional<LockHandle>> maybe) {
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
}
