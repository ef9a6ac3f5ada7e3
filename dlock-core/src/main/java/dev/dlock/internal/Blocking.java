package dev.dlock.internal;

import dev.dlock.internal.store.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waiting for futures on the caller's thread, with the interrupt rules of {@code Lock}. */
public final class Blocking {

    private Blocking() {
    }

    /** Waits to the end; an interrupt is remembered and set again on return. */
    public static <T> T awaitUninterruptibly(CompletableFuture<T> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
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
}
