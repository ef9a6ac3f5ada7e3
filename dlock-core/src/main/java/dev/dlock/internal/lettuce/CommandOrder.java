package dev.dlock.internal.lettuce;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Sends one connection's commands in the order they were issued. Netty writes a command issued
 * on the connection's I/O thread at once, but queues one issued on any other thread as a task
 * for that I/O thread; and one I/O thread serves several connections (a Redlock client's nodes
 * share two). So a command sent from a reply callback (on the I/O thread) could reach the
 * server before a command issued a moment earlier from another thread, still queued: the
 * abandon sent when a quorum refused an attempt reached a slow node before that attempt's
 * acquire, which then granted there and left a copy that nobody held or released until its
 * lease ended (FairLockTest caught it as a key left behind).
 *
 * <p>So commands issued on a Netty thread are handed to one writer thread, which is never an
 * I/O thread and issues them in turn; and while any are waiting for it, commands from other
 * threads queue behind them. Commands issued on other threads with nothing waiting (the common
 * case: a caller's acquire or release) are issued at once, without the hand-off.
 */
public final class CommandOrder {
    private final Executor writer;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    /** A drain of {@link #waiting} is scheduled or running; guarded by this. */
    private boolean draining;

    public CommandOrder(Executor writer) {
        this.writer = writer;
    }

    public <T> CompletableFuture<T> send(Supplier<? extends CompletionStage<T>> command) {
        CompletableFuture<T> sent = new CompletableFuture<>();
        synchronized (this) {
            if (draining || Thread.currentThread() instanceof FastThreadLocalThread) {
                waiting.add(() -> issue(command, sent));
                if (!draining) {
                    draining = true;
                    drainLater();
                }
                return sent;
            }
        }
        // nothing is waiting, so everything issued before this call has reached Netty's queue
        issue(command, sent);
        return sent;
    }

    private void drainLater() {
        try {
            writer.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // the client's resources are shut down: nothing will be sent any more
            drain();
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = waiting.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            next.run();
        }
    }

    private static <T> void issue(Supplier<? extends CompletionStage<T>> command, CompletableFuture<T> sent) {
        try {
            command.get().whenComplete((value, error) -> {
                if (error != null) {
                    sent.completeExceptionally(error);
                } else {
                    sent.complete(value);
                }
            });
        } catch (RuntimeException e) {
            sent.completeExceptionally(e);
        }
    }
}
