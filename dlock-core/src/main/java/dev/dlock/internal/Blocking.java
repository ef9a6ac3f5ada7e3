package dev.dlock.internal;

import dev.dlock.internal.store.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** Waiting for futures on the caller's thread, with the interrupt rules of {@code Lock}. */
public final class Blocking {

    private Blocking() {
    }

    /** Waits to the end; an interrupt is remembered and set again on return. */
    public static <T> T awaitUninterruptibly(CompletableFuture<T> future) {
        try {
            return awaitUninterruptibly(future, 0, false);
        } catch (TimeoutException unbounded) {
            throw new AssertionError("a wait without bound timed out", unbounded);
        }
    }

    /**
     * Waits until {@code deadlineNanos} ({@link System#nanoTime()}) at most; an interrupt is
     * remembered and set again on return.
     *
     * @throws TimeoutException the future was not done by then
     */
    public static <T> T awaitUninterruptiblyUntil(CompletableFuture<T> future, long deadlineNanos) throws TimeoutException {
        return awaitUninterruptibly(future, deadlineNanos, true);
    }

    private static <T> T awaitUninterruptibly(CompletableFuture<T> future, long deadlineNanos, boolean bounded)
            throws TimeoutException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return bounded ? future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                            : future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw Failures.forCaller(e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits to the end, or until interrupted: then {@code cancel} stops the acquire, a grant that
     * raced the interrupt (within {@code boundMs}) is given back with {@code giveBack}, waited for
     * as long again, and the interrupt is thrown.
     */
    public static <T> T awaitInterruptibly(CompletableFuture<T> result, Runnable cancel,
                                           Function<T, CompletableFuture<?>> giveBack, long boundMs)
            throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw Failures.forCaller(e);
        } catch (InterruptedException interrupt) {
            cancel.run();
            try {
                T raced = result.get(boundMs, TimeUnit.MILLISECONDS);
                if (raced != null) {
                    giveBack.apply(raced).get(boundMs, TimeUnit.MILLISECONDS);
                }
            } catch (ExecutionException | TimeoutException | InterruptedException ignored) {
                // the acquire failed or hangs: the store already sent a best-effort release
            }
            throw interrupt;
        }
    }
}
