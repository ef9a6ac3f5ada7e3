package dev.dlock.internal.acquire;

import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The caller's wait as the bound of the whole acquire: an acquire with a wait answers at the latest
 * {@link Settings#WAIT_OVERRUN} after its wait ends, whether the store answers or not. Without it a
 * store that stopped answering (a paused server, a lost network) held the caller for the command
 * timeout and more, whatever wait it asked for. The overrun leaves the attempt made as the wait ends
 * time for its round trip on a healthy store, and bounds it on a silent one.
 *
 * <p>Cutting an attempt short leaves its outcome unknown: the acquisition takes the attempt from
 * its reply ({@link OutageRetry#atBound}), sends its best-effort release at once, answers the
 * caller and cancels; the reply then comes for nobody, and a grant in it is given back again.
 */
final class WaitBound {

    static final long OVERRUN_NANOS = Settings.WAIT_OVERRUN.toNanos();

    private WaitBound() {
    }

    /**
     * Runs {@code overran} once the wait and the overrun have passed, unless {@code result} is
     * done by then.
     *
     * @param waitNanos the caller's wait; negative: without bound, nothing is armed
     */
    static void arm(Ticker ticker, long waitNanos, CompletableFuture<?> result, Runnable overran) {
        if (waitNanos < 0) {
            return;
        }
        ScheduledFuture<?> timer;
        try {
            timer = ticker.schedule(overran, waitNanos + OVERRUN_NANOS, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException clientClosed) {
            // the timer is gone with the client: the close ends the acquisition instead
            return;
        }
        result.whenComplete((ignored, error) -> timer.cancel(false));
    }
}
