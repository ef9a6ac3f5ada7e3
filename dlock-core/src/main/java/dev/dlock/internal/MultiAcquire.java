package dev.dlock.internal;

import dev.dlock.DistributedLock;
import dev.dlock.LockHandle;
import dev.dlock.internal.store.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A multi-lock's handle acquire: the names one after the other in their order, each as a handle;
 * when one is not granted (wait over, failure, the result cancelled) the handles taken so far are
 * released before the result completes. Each step runs when the previous one's future completes.
 */
public final class MultiAcquire {

    private final String name;
    private final List<DistributedLock> locks;
    private final Function<DistributedLock, CompletableFuture<Optional<LockHandle>>> acquireOne;
    private final CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
    /** Touched by one step at a time: each step starts from the previous one's completion. */
    private final List<LockHandle> taken = new ArrayList<>();
    private volatile CompletableFuture<Optional<LockHandle>> current;

    public MultiAcquire(String name, List<DistributedLock> locks,
                 Function<DistributedLock, CompletableFuture<Optional<LockHandle>>> acquireOne) {
        this.name = name;
        this.locks = locks;
        this.acquireOne = acquireOne;
    }

    /**
     * An unbounded acquire's handle as a step: cancelling the step cancels that acquire (a future
     * made by {@code thenApply} would not), and a handle that comes after the cancel is released.
     */
    public static CompletableFuture<Optional<LockHandle>> step(CompletableFuture<LockHandle> acquire) {
        CompletableFuture<Optional<LockHandle>> step = new CompletableFuture<>();
        acquire.whenComplete((handle, error) -> {
            if (error != null) {
                step.completeExceptionally(error);
            } else if (!step.complete(Optional.of(handle))) {
                handle.releaseAsync();
            }
        });
        step.whenComplete((ignored, error) -> {
            if (step.isCancelled()) {
                acquire.cancel(false);
            }
        });
        return step;
    }

    public CompletableFuture<Optional<LockHandle>> start() {
        result.whenComplete((ignored, error) -> {
            CompletableFuture<Optional<LockHandle>> step = current;
            if (result.isCancelled() && step != null) {
                step.cancel(false);
            }
        });
        next(0);
        return result;
    }

    private void next(int index) {
        if (result.isDone()) {
            // cancelled meanwhile: nobody will see these handles
            MultiHandle.releaseAll(List.copyOf(taken));
            return;
        }
        if (index == locks.size()) {
            if (!result.complete(Optional.of(new MultiHandle(name, taken)))) {
                MultiHandle.releaseAll(List.copyOf(taken));
            }
            return;
        }
        CompletableFuture<Optional<LockHandle>> step;
        try {
            step = acquireOne.apply(locks.get(index));
        } catch (RuntimeException e) {
            giveUp(e);
            return;
        }
        current = step;
        if (result.isCancelled()) {
            step.cancel(false);
        }
        step.whenComplete((maybe, error) -> {
            if (error != null || maybe.isEmpty()) {
                giveUp(error);
                return;
            }
            taken.add(maybe.get());
            next(index + 1);
        });
    }

    /** Not every name: the taken ones go back first, then the result completes (empty, or the failure). */
    private void giveUp(Throwable error) {
        MultiHandle.releaseAll(List.copyOf(taken)).whenComplete((ok, releaseError) -> {
            if (error == null) {
                result.complete(Optional.empty());
            } else {
                result.completeExceptionally(Failures.unwrap(error));
            }
        });
    }
}
