package dev.dlock.internal.store;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@link StoreHandoff}'s bound on passing a lock between the threads of its client ahead of the
 * waiters queued in the store (PostgreSQL, ZooKeeper): per lock, how many times in a row this client
 * did, and since when. A handoff inside one client costs a round trip or nothing; one to another
 * client adds a wake-up there, several times as long. Passing the lock around the client's own
 * threads first multiplies throughput when many threads contend for short holds; the bounds keep
 * every queued waiter's wait finite (at most {@value #MAX_PASSES} grants, within {@link
 * #WINDOW_NANOS} plus one hold, per client ahead of it) and the threads' shares fair. Long holds
 * outlast the window: their waiters are served in the order they queued.
 */
public final class QueuePassRuns {

    public static final int MAX_PASSES = 32;
    public static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** A run of passes: how many, since when (monotonic nanos). */
    private record Run(int count, long sinceNanos) {
    }

    private final ConcurrentHashMap<String, Run> runs = new ConcurrentHashMap<>();

    /** Whether the lock of {@code key} may be passed ahead of the queue once more. */
    public boolean mayPass(String key, long nowNanos) {
        Run run = runs.get(key);
        return run == null || run.count() < MAX_PASSES && nowNanos - run.sinceNanos() < WINDOW_NANOS;
    }

    /** The lock of {@code key} was passed ahead of the queue: the run goes on, or starts now. */
    public void passed(String key, long nowNanos) {
        runs.merge(key, new Run(1, nowNanos), (run, first) -> new Run(run.count() + 1, run.sinceNanos()));
    }

    /** The lock of {@code key} left this client, was released, or went to the queue: the run ends. */
    public void ended(String key) {
        runs.remove(key);
    }
}
