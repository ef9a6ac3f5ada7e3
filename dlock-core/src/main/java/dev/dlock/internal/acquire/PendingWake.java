package dev.dlock.internal.acquire;

import dev.dlock.internal.settings.Ticker;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One wait of a refused waiter between two attempts. It ends once: by its timer, a release
 * message meant for the waiter, a cancel ({@link #fire()} runs the next step), or a release of
 * the same client that claims the waiter for a handoff ({@link #claim()}: the handoff's outcome
 * decides the next step).
 */
public final class PendingWake {

    private final AtomicBoolean over = new AtomicBoolean();
    private final Consumer<String> next;
    private volatile ScheduledFuture<?> timer;

    /**
     * @param next the step after the wait: runs at most once, on whichever thread ends the wait,
     *             with the release message that ended it (null: its timer, a cancel, a reconnect)
     */
    public PendingWake(Consumer<String> next) {
        this.next = next;
    }

    /** Ends the wait after {@code nanos} at the latest. */
    public void startTimer(Ticker ticker, long nanos) {
        timer = ticker.schedule(this::fire, nanos, TimeUnit.NANOSECONDS);
    }

    /** Ends the wait and runs the next step, unless the wait is over already. */
    public void fire() {
        fire(null);
    }

    /** Ends the wait for this release message and runs the next step, unless the wait is over already. */
    public void fire(String message) {
        if (end()) {
            next.accept(message);
        }
    }

    /** Ends the wait without running the next step: true unless it was over already. */
    public boolean claim() {
        return end();
    }

    public boolean isOver() {
        return over.get();
    }

    private boolean end() {
        if (!over.compareAndSet(false, true)) {
            return false;
        }
        ScheduledFuture<?> started = timer;
        if (started != null) {
            started.cancel(false);
        }
        return true;
    }
}
