package dev.dlock.internal.postgres;

import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.QueuePassRuns;
import dev.dlock.internal.store.StoreHandoff;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The PostgreSQL store's {@link StoreHandoff}: the last release of a reentrant hold with a waiter
 * of this client parked, by a pass ({@link PgPasses}) or in one call of {@code dlock_hand_off}. It
 * lives apart from {@link PostgresStore} because it keeps state of its own, per lock, that no other
 * operation needs: this client's run of handoffs to its own threads ahead of the queue ({@link
 * QueuePassRuns}), which decides whether the next handoff may pass the queue once more. A plain
 * release that frees the lock ends the run ({@link #lockLeft}).
 */
final class PgHandoff implements StoreHandoff {

    private final PgConnections connections;
    private final PgPasses grants;
    private final LongSupplier nanoTime;
    private final String handOffSql;
    /** Per lock key, this client's run of handoffs to its own parked threads ahead of queued waiters. */
    private final QueuePassRuns passedQueue = new QueuePassRuns();

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
        boolean mayPassQueue = passedQueue.mayPass(key, startNanos);
        if (mayPassQueue && !toQueued) {
            AcquireReply.Granted passed = grants.pass(key, fromOwner, toOwner, leaseMs, toHolder, startNanos);
            if (passed != null) {
                passedQueue.passed(key, startNanos);
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
                    String outcome = row.getString(1);
                    String passedWaiter = row.getString(3);
                    // a handoff to its own thread that went ahead of a queued waiter goes on with the run
                    if (outcome.equals("own") && !passedWaiter.isEmpty()) {
                        passedQueue.passed(key, startNanos);
                    } else {
                        passedQueue.ended(key);
                    }
                    grants.ended(fromOwner);
                    return switch (outcome) {
                        case "own" -> {
                            long validUntilNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
                            grants.granted(key, toOwner, row.getLong(2), validUntilNanos, leaseMs, startNanos);
                            yield new Reply(new AcquireReply.Granted(row.getLong(2), 1, validUntilNanos),
                                    Outcome.HANDED_TO_OWN_WAITER, "");
                        }
                        case "queued" -> new Reply(null, Outcome.HANDED_TO_QUEUED, passedWaiter);
                        case "released" -> new Reply(null, Outcome.RELEASED, "");
                        default -> new Reply(null, Outcome.NOT_OWNER, "");
                    };
                }
            }
        }).handle(connections.failing("release", target.name()));
    }

    /** The lock of {@code key} was released by this client with no hold of it left: the run ends. */
    void lockLeft(String key) {
        passedQueue.ended(key);
    }
}
