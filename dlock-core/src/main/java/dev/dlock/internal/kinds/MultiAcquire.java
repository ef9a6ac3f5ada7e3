package dev.dlock.internal.kinds;

import dev.dlock.LockHandle;
import dev.dlock.internal.Callbacks;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.store.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A multi-lock's handle acquire: the names one after the other in their order, each as a handle;
 * when one is not granted (wait over, failure, the result cancelled) the handles taken so far are
 * released before the result completes. Each step runs when the previous one's future completes.
 */
public final class MultiAcquire {

    private final Callbacks callbacks;
    private final String name;
    private final List<StoreLock> locks;
    /** The wait for all the names; negative: without bound. */
    private final long waitNanos;
    private final long startNanos = System.nanoTime();
    private final Function<StoreLock, CompletableFuture<Optional<LockHandle>>> acquireOne;
    private final CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
    /** Touched by one step at a time: each step starts from the previous one's completion. */
    private final List<Handle> taken = new ArrayList<>();
    private volatile CompletableFuture<Optional<LockHandle>> current;

    /**
     * @param waitNanos  the wait for all the names, which also bounds the give-back; negative: without bound
     * @param acquireOne a name's handle acquire ({@link StoreLock#startHandle}), whose handles are {@link Handle}s
     */
    public MultiAcquire(Callbacks callbacks, String name, List<StoreLock> locks, long waitNanos,
                 Function<StoreLock, CompletableFuture<Optional<LockHandle>>> acquireOne) {
        this.callbacks = callbacks;
        this.name = name;
        this.locks = locks;
        this.waitNanos = waitNanos;
        this.acquireOne = acquireOne;
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
            if (!result.complete(Optional.of(new MultiHandle(callbacks, name, taken)))) {
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
            taken.add((Handle) maybe.get());
            next(index + 1);
        });
    }

    /**
     * Not every name: the taken ones go back first, then the result completes (empty, or the
     * failure); with a wait, at the latest when the wait and {@link Settings#WAIT_OVERRUN} have
     * passed, the releases going on without the caller.
     */
    private void giveUp(Throwable error) {
        CompletableFuture<Void> givenBack = MultiHandle.releaseAll(List.copyOf(taken));
        if (waitNanos >= 0) {
            long leftNanos = startNanos + waitNanos + Settings.WAIT_OVERRUN.toNanos() - System.nanoTime();
            givenBack = givenBack.completeOnTimeout(null, Math.max(0, leftNanos), TimeUnit.NANOSECONDS);
        }
        givenBack.whenComplete((ok, releaseError) -> {
            if (error == null) {
                result.complete(Optional.empty());
            } else {
                result.completeExceptionally(Failures.unwrap(error));
            }
        });
    }
}
