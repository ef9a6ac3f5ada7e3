package dev.dlock.internal.postgres;

import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.StoreHandoff;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The PostgreSQL store's {@link StoreHandoff}: the last release of a reentrant hold with a waiter
 * of this client parked, in one call of {@code dlock_hand_off}. It lives apart from {@link
 * PostgresStore} because it keeps state of its own, per lock, that no other operation needs: how
 * long this client's run of handoffs to its own threads ahead of the queue has lasted, which
 * decides whether the next handoff may pass the queue once more. A plain release that frees the
 * lock ends the run ({@link #lockLeft}).
 */
final class PgHandoff implements StoreHandoff {

    /**
     * How many times in a row a client may hand a lock to a thread of its own that waits, ahead of
     * waiters queued before it (of other clients, or of its own that are not parked), and for how
     * long after the first time. A handoff inside one client is one round trip; one to another
     * client adds its NOTIFY and a wake-up there, several times as long. Passing the lock around
     * the client's own threads first multiplies throughput when many threads contend for short
     * holds; the bounds keep every queued waiter's wait finite (at most this many grants, within
     * this time plus one hold, per client ahead of it) and the threads' shares fair. Long holds
     * outlast the window: their waiters are served in the order they queued.
     */
    static final int MAX_QUEUE_PASSES = 32;
    static final long QUEUE_PASS_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** A run of handoffs ahead of the queue: how many, since when (monotonic nanos). */
    private record QueuePasses(int count, long sinceNanos) {
    }

    private final PgConnections connections;
    private final PgPasses grants;
    private final LongSupplier nanoTime;
    private final String handOffSql;
    /**
     * Per lock key, how many times in a row a release by this client gave the lock to one of its
     * own parked threads ahead of queued waiters; no entry once the lock left this client or was
     * released.
     */
    private final ConcurrentHashMap<String, QueuePasses> passedQueue = new ConcurrentHashMap<>();

    PgHandoff(PgConnections connections, PgSchema schema, PgPasses grants, LongSupplier nanoTime) {
        this.connections = connections;
        this.grants = grants;
        this.nanoTime = nanoTime;
        this.handOffSql = "SELECT outcome, token, waiter FROM " + schema.qualified("dlock_hand_off(?, ?, ?, ?, ?, ?, ?)");
    }

    @Override
    public CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                            long leaseMs, String toWaiterId) {
        return handOff(target, fromOwner, ownSubscriptions, toOwner, leaseMs, toWaiterId, "", true);
    }

    /**
     * A waiter that is not queued in the database may be passed the lock without a call (see {@link
     * PgPasses}) while this client's run ahead of the queue lasts: the pass cannot know whether
     * another client queued meanwhile, so it counts as passing the queue. A queued waiter's row, or a
     * pass that cannot be made, takes the call.
     */
    @Override
    public CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                            long leaseMs, String toWaiterId, String toHolder, boolean toQueued) {
        long startNanos = nanoTime.getAsLong();
        String key = target.key();
        QueuePasses passes = passedQueue.get(key);
        boolean mayPassQueue = passes == null
                || passes.count() < MAX_QUEUE_PASSES && startNanos - passes.sinceNanos() < QUEUE_PASS_WINDOW_NANOS;
        if (mayPassQueue && !toQueued) {
            AcquireReply.Granted passed = grants.pass(key, fromOwner, toOwner, leaseMs, toHolder, startNanos);
            if (passed != null) {
                countPasses(key, passes, startNanos, "own", toOwner);
                return CompletableFuture.completedFuture(new Reply(passed, Outcome.HANDED_TO_OWN_WAITER, ""));
            }
        }
        String rowOwner = grants.rowOwner(fromOwner);
        return connections.submit("hand_off", c -> {
            try (PreparedStatement call = c.prepareStatement(handOffSql)) {
                call.setString(1, target.key());
                call.setString(2, rowOwner);
                call.setInt(3, ownSubscriptions);
                call.setString(4, toOwner);
                call.setLong(5, leaseMs);
                call.setString(6, toWaiterId == null ? "" : toWaiterId);
                call.setBoolean(7, mayPassQueue);
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    countPasses(key, passes, startNanos, row.getString(1), row.getString(3));
                    grants.ended(fromOwner);
                    long validUntilNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
                    if (row.getString(1).equals("own")) {
                        grants.granted(key, toOwner, row.getLong(2), validUntilNanos, leaseMs, startNanos);
                    }
                    return switch (row.getString(1)) {
                        case "own" -> new Reply(new AcquireReply.Granted(row.getLong(2), 1, validUntilNanos),
                                Outcome.HANDED_TO_OWN_WAITER, "");
                        case "queued" -> new Reply(null, Outcome.HANDED_TO_QUEUED, row.getString(3));
                        case "released" -> new Reply(null, Outcome.RELEASED, "");
                        default -> new Reply(null, Outcome.NOT_OWNER, "");
                    };
                }
            }
        }).handle(connections.failing("release", target.name()));
    }

    /** Counts a handoff that went ahead of a queued waiter; any other outcome ends the run. */
    private void countPasses(String key, QueuePasses passes, long startNanos, String outcome, String passedWaiter) {
        if (outcome.equals("own") && !passedWaiter.isEmpty()) {
            passedQueue.put(key, passes == null ? new QueuePasses(1, startNanos)
                    : new QueuePasses(passes.count() + 1, passes.sinceNanos()));
        } else {
            passedQueue.remove(key);
        }
    }

    /** The lock of {@code key} was released by this client with no hold of it left: the run ends. */
    void lockLeft(String key) {
        passedQueue.remove(key);
    }
}
