package dev.dlock.internal.acquire;

import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * What ends an acquire loop's wait from outside, for {@link Acquisition} and
 * {@link AllOrNoneAcquisition} alike: the caller's cancel, and the client's close, which fails the
 * wait with an exception of its own. Either fires the current wait between attempts, so that the
 * loop wakes at once and ends; one that comes while no wait is set is seen by the loop's next step,
 * or by {@link #fireIfStopped} once the loop has set its wait.
 */
final class WaitStop {

    private volatile boolean cancelled;
    /** Set when the client closes during the wait: the result fails with it, whatever comes. */
    private volatile IllegalStateException closedWhileWaiting;
    /** The current wait between attempts; null before the first and once the acquisition ended. */
    private volatile PendingWake pendingWake;

    void cancel() {
        cancelled = true;
        PendingWake wait = pendingWake;
        if (wait != null) {
            wait.fire();
        }
    }

    /** @param what the lock as the message names it, e.g. {@code lock 'orders'} */
    void clientClosed(String what) {
        closedWhileWaiting = new IllegalStateException(what + ": the LockClient was closed while waiting for it");
        cancel();
    }

    boolean cancelled() {
        return cancelled;
    }

    /** The exception the wait fails with because the client closed, or null. */
    IllegalStateException closedWhileWaiting() {
        return closedWhileWaiting;
    }

    /** Makes {@code wait} the current wait: false when a stop came first, which fired it (do not start it then). */
    boolean waitOn(PendingWake wait) {
        pendingWake = wait;
        if (cancelled) {
            // a cancel (or the client's close, which also stops the timer) came before the wait was set
            wait.fire();
            return false;
        }
        return true;
    }

    /** Once the wait is started: a stop that came meanwhile ends it. */
    void fireIfStopped(PendingWake wait) {
        if (cancelled) {
            wait.fire();
        }
    }

    /** The current wait, or null. */
    PendingWake currentWait() {
        return pendingWake;
    }

    /** The loop waits no more. */
    void noWait() {
        pendingWake = null;
    }

    /**
     * The store failed: try again after a pause while the outage budget lasts (never after a stop),
     * else fail.
     *
     * @param pauseThenAttempt waits the given nanos, then attempts again
     * @param fail             ends the loop with the failure (after a stop, the store's own)
     */
    void retryOrFail(OutageRetry outages, Throwable failure, LongConsumer pauseThenAttempt, Consumer<Throwable> fail) {
        long pauseNanos = cancelled ? -1 : outages.pauseAfter(failure);
        try {
            if (pauseNanos >= 0) {
                pauseThenAttempt.accept(pauseNanos);
                return;
            }
        } catch (RejectedExecutionException clientClosed) {
            // the timer is gone: give up as if the budget had ended
        }
        fail.accept(cancelled ? failure : outages.givenUp(failure));
    }
}
