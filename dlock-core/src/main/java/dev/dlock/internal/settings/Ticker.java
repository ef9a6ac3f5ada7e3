package dev.dlock.internal.settings;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The clock and timer of one client: a monotonic nanosecond source and a scheduler. Every deadline,
 * validity and renewal period (the acquire loop, the watchdog, a hold's known validity, the stores'
 * grant validity) is read from and scheduled on the same ticker, so a test can substitute one that
 * it advances by hand and check time-dependent logic without sleeping.
 */
public interface Ticker {

    /** Monotonic time in nanoseconds, comparable only with other readings of this ticker. */
    long nanoTime();

    ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit);

    ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit);

    /** Cancels every pending task; nothing runs afterwards. */
    void shutdown();

    /** {@link System#nanoTime()} and one daemon timer thread ("dlock-timer"). */
    static Ticker system() {
        return new SystemTicker();
    }

    /** The production ticker. */
    final class SystemTicker implements Ticker {
        private final ScheduledThreadPoolExecutor timers;

        private SystemTicker() {
            timers = new ScheduledThreadPoolExecutor(1, Daemons.named("dlock-timer"));
            timers.setRemoveOnCancelPolicy(true);
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return timers.schedule(task, delay, unit);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit) {
            return timers.scheduleAtFixedRate(task, initialDelay, period, unit);
        }

        @Override
        public void shutdown() {
            timers.shutdownNow();
        }
    }
}
