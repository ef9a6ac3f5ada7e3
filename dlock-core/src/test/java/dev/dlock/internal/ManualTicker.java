package dev.dlock.internal;

import dev.dlock.internal.settings.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A ticker whose clock moves only when the test says so; due tasks then run on the test's thread. */
final class ManualTicker implements Ticker {

    private long now;
    private final List<Task> tasks = new ArrayList<>();

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        return add(task, unit.toNanos(delay), 0);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit) {
        return add(task, unit.toNanos(initialDelay), unit.toNanos(period));
    }

    @Override
    public synchronized void shutdown() {
        tasks.forEach(task -> task.cancel(false));
        tasks.clear();
    }

    /** One-shot tasks scheduled and neither run nor cancelled yet. */
    synchronized long pendingOneShots() {
        return tasks.stream().filter(task -> task.periodNanos == 0 && !task.isCancelled()).count();
    }

    /** Moves the clock on and runs every task due by then, earliest first. */
    void advance(Duration by) {
        long until;
        synchronized (this) {
            until = now + by.toNanos();
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.stream().filter(task -> !task.isCancelled() && task.dueNanos <= until)
                        .min(Comparator.comparingLong(task -> task.dueNanos)).orElse(null);
                if (next == null) {
                    now = until;
                    return;
                }
                now = Math.max(now, next.dueNanos);
                if (next.periodNanos > 0) {
                    next.dueNanos += next.periodNanos;
                } else {
                    tasks.remove(next);
                    next.done = true;
                }
            }
            next.action.run();
        }
    }

    private synchronized Task add(Runnable action, long delayNanos, long periodNanos) {
        Task task = new Task(action, now + delayNanos, periodNanos);
        tasks.add(task);
        return task;
    }

    private final class Task implements ScheduledFuture<Object> {
        private final Runnable action;
        private final long periodNanos;
        private volatile long dueNanos;
        private volatile boolean cancelled;
        private volatile boolean done;

        Task(Runnable action, long dueNanos, long periodNanos) {
            this.action = action;
            this.dueNanos = dueNanos;
            this.periodNanos = periodNanos;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean wasPending = !cancelled && !done;
            cancelled = true;
            return wasPending;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled || done;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("a test ticker's task has no result");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("a test ticker's task has no result");
        }
    }
}
