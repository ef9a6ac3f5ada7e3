package dev.dlock.internal;

import dev.dlock.internal.store.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The future an async acquire hands its caller. Whatever completes it from outside ({@code cancel},
 * {@code complete}, {@code completeExceptionally}, {@code orTimeout}, {@code completeOnTimeout},
 * {@code completeAsync}, an {@code obtrude} before dlock's result) stops the acquire, and a hold
 * granted meanwhile is given back: nobody could see it any more. Once dlock has completed it, its
 * result cannot be replaced ({@code obtrude} throws), since a hidden handle would keep its lock.
 * Dependent stages are made by {@link CompletableFuture} itself, so completing one of them is the
 * caller's business, as with any future.
 *
 * @param <T> the handle, or an optional one
 */
final class CallerFuture<T> extends CompletableFuture<T> {

    private final CompletableFuture<T> source;
    private final Consumer<? super T> giveBack;
    private final Executor executor;
    /** Set once dlock completed this future with its result. */
    private volatile boolean delivered;

    private CallerFuture(CompletableFuture<T> source, Consumer<? super T> giveBack, Executor executor) {
        this.source = source;
        this.giveBack = giveBack;
        this.executor = executor;
    }

    /**
     * @param source   dlock's own future of the acquire; cancelling it stops the acquire
     * @param giveBack releases a result that came after the caller's future was done
     * @param executor where the result completes the caller's future (and its dependent stages run)
     */
    static <T> CompletableFuture<T> of(CompletableFuture<T> source, Consumer<? super T> giveBack, Executor executor) {
        CallerFuture<T> caller = new CallerFuture<>(source, giveBack, executor);
        Callbacks.whenComplete(source, executor, caller::deliver);
        return caller;
    }

    private void deliver(T value, Throwable error) {
        if (error != null) {
            super.completeExceptionally(Failures.unwrap(error));
            return;
        }
        delivered = true;
        if (!super.complete(value)) {
            delivered = false;
            giveBack.accept(value);
        }
    }

    /** The caller completed this future first: the acquire stops, and a grant that raced it goes back. */
    private boolean abandonIf(boolean completedByCaller) {
        if (completedByCaller) {
            source.cancel(false);
        }
        return completedByCaller;
    }

    @Override
    public boolean complete(T value) {
        return abandonIf(super.complete(value));
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        return abandonIf(super.completeExceptionally(failure));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return abandonIf(super.cancel(mayInterruptIfRunning));
    }

    /** Through {@link #complete} and {@link #completeExceptionally}, which {@code CompletableFuture}'s own bypasses. */
    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor runOn) {
        if (supplier == null || runOn == null) {
            throw new NullPointerException();
        }
        runOn.execute(() -> {
            T value;
            try {
                value = supplier.get();
            } catch (Throwable failure) {
                completeExceptionally(failure);
                return;
            }
            complete(value);
        });
        return this;
    }

    @Override
    public void obtrudeValue(T value) {
        refuseOnceDelivered();
        super.obtrudeValue(value);
        source.cancel(false);
    }

    @Override
    public void obtrudeException(Throwable failure) {
        refuseOnceDelivered();
        super.obtrudeException(failure);
        source.cancel(false);
    }

    private void refuseOnceDelivered() {
        if (delivered) {
            throw new IllegalStateException("dlock completed this future with its result already: replacing the result "
                    + "would hide a handle whose lock stays held; release the handle instead");
        }
    }

    /** Async stages without an executor of their own run where the result is delivered. */
    @Override
    public Executor defaultExecutor() {
        return executor;
    }
}
