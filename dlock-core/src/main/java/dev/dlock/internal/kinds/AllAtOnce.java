package dev.dlock.internal.kinds;

import dev.dlock.LockHandle;
import dev.dlock.internal.Blocking;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.acquire.AllOrNoneAcquisition;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A multi-lock's acquires where the store takes every name in one step, all or none
 * ({@link LockEngine#acquireAll}): the grants become one ordinary reentrant hold per name, bound
 * to the thread or gathered in a {@link MultiHandle}, so that unlock, renewal, tokens and losses
 * are each name's as on every other store.
 */
final class AllAtOnce {

    private AllAtOnce() {
    }

    /**
     * Thread-bound: takes every name for the current thread, or none.
     *
     * @param waitNanos how long to wait; negative: without bound
     * @return false when the wait ended first
     */
    static boolean take(LockEngine engine, List<LockTarget> targets, long leaseMs, boolean renewed, long waitNanos,
                        boolean interruptible) throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring multi-lock " + names(targets));
        }
        AllOrNoneAcquisition acquisition = engine.acquireAll(targets, leaseMs, waitNanos);
        List<AcquireReply.Granted> grants = interruptible
                ? awaitInterruptibly(engine, acquisition)
                : Blocking.awaitUninterruptibly(acquisition.result());
        if (grants == null) {
            return false;
        }
        for (Hold hold : engine.registerAll(acquisition, grants, renewed)) {
            engine.holds().bindToCurrentThread(hold);
        }
        return true;
    }

    /** On interrupt: stop waiting, make sure nothing stays held in the store, then throw. */
    private static List<AcquireReply.Granted> awaitInterruptibly(LockEngine engine, AllOrNoneAcquisition acquisition)
            throws InterruptedException {
        return Blocking.awaitInterruptibly(acquisition.result(), acquisition::cancel, raced -> {
            List<CompletableFuture<Void>> abandons = new ArrayList<>();
            for (int i = 0; i < raced.size(); i++) {
                abandons.add(engine.abandon(acquisition.targets().get(i), LockKind.REENTRANT, acquisition.owners().get(i)));
            }
            return CompletableFuture.allOf(abandons.toArray(CompletableFuture[]::new));
        }, engine.closeBoundMs());
    }

    /** For a handle: every name or none; cancelling the returned future cancels the acquire. */
    static CompletableFuture<Optional<LockHandle>> handle(LockEngine engine, String name, List<LockTarget> targets,
                                                         long leaseMs, boolean renewed, long waitNanos) {
        AllOrNoneAcquisition acquisition = engine.acquireAll(targets, leaseMs, waitNanos);
        CompletableFuture<Optional<LockHandle>> handle = new CompletableFuture<>();
        acquisition.result().whenComplete((grants, error) -> {
            if (error != null) {
                handle.completeExceptionally(Failures.unwrap(error));
            } else if (grants == null) {
                handle.complete(Optional.empty());
            } else {
                List<Handle> handles = new ArrayList<>();
                for (Hold hold : engine.registerAll(acquisition, grants, renewed)) {
                    handles.add(new Handle(engine, hold));
                }
                if (!handle.complete(Optional.of(new MultiHandle(engine.callbacks(), name, handles)))) {
                    MultiHandle.releaseAll(handles);
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

    private static List<String> names(List<LockTarget> targets) {
        return targets.stream().map(LockTarget::name).toList();
    }
}
