package dev.dlock.internal;

import dev.dlock.LockHandle;
import dev.dlock.internal.settings.Daemons;
import dev.dlock.internal.store.Failures;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The futures a client hands its callers, completed on the client's callback executor: never
 * dlock's own futures, which a caller could cancel or complete under dlock's feet, and never on
 * dlock's own threads (a store connection's, the timer's, a releasing caller's), where a callback
 * that blocks or releases a handle would stall dlock or wait for itself.
 */
public final class Callbacks {

    /**
     * The default callback executor, shared by the clients of the JVM: a virtual thread per task on
     * JDK 21 and later, else a cached pool of daemon threads (idle ones end after a minute). Both
     * grow with what the callbacks do, so no callback can hold up another or dlock.
     */
    public static final Executor DEFAULT_EXECUTOR = defaultExecutor();

    private final Executor executor;

    public Callbacks(Executor executor) {
        this.executor = executor;
    }

    /** An acquire's future for its caller: see {@link CallerFuture}. */
    public CompletableFuture<LockHandle> handle(CompletableFuture<LockHandle> acquire) {
        return CallerFuture.of(acquire, LockHandle::releaseAsync, executor);
    }

    /** A bounded acquire's future for its caller: see {@link CallerFuture}. */
    public CompletableFuture<Optional<LockHandle>> maybeHandle(CompletableFuture<Optional<LockHandle>> acquire) {
        return CallerFuture.of(acquire, granted -> granted.ifPresent(LockHandle::releaseAsync), executor);
    }

    /** A copy of one of dlock's futures: completing or cancelling it changes nothing of dlock's. */
    public <T> CompletableFuture<T> copy(CompletableFuture<T> source) {
        CompletableFuture<T> copy = new CompletableFuture<>();
        whenComplete(source, executor, (value, error) -> {
            if (error != null) {
                copy.completeExceptionally(Failures.unwrap(error));
            } else {
                copy.complete(value);
            }
        });
        return copy;
    }

    /**
     * Runs {@code action} with the outcome of {@code source} on {@code executor}; at once on the calling
     * thread when the source is done already, so that a copy of a done future is done when it is returned.
     */
    static <T> void whenComplete(CompletableFuture<T> source, Executor executor, BiConsumer<T, Throwable> action) {
        if (source.isDone()) {
            source.whenComplete(action);
        } else {
            source.whenComplete((value, error) -> execute(executor, () -> action.accept(value, error)));
        }
    }

    /** On the executor; should it refuse (shut down by its owner), on the default one, so that no caller waits forever. */
    private static void execute(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException refused) {
            DEFAULT_EXECUTOR.execute(task);
        }
    }

    /** Virtual threads, looked up reflectively since dlock is built for Java 17. */
    private static Executor defaultExecutor() {
        try {
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, "dlock-callback-", 0L);
            ThreadFactory virtual = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
            return (Executor) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
                    .invoke(null, virtual);
        } catch (ReflectiveOperationException | RuntimeException before21) {
            return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    Daemons.named("dlock-callback"));
        }
    }
}
