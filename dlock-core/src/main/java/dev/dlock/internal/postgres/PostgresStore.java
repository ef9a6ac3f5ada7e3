package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.LockHolder;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.ClientRecordEntry;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.StoreAllOrNone;
import dev.dlock.internal.store.StoreHandoff;
import dev.dlock.internal.store.WakeUpSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in PostgreSQL: each operation is one call of one of the functions of {@link
 * PgSchema#RESOURCES} (one transaction, one round trip), on a connection borrowed for the call. A
 * lock's name in the tables is its key ({@code <prefix>{name}}), so clients with other key
 * prefixes share the tables without meeting. Leases are judged on the database's clock; a grant's
 * validity on this process's clock starts at the start of the call, before the database's lease
 * does, so the client never believes in a hold the database has let go.
 */
final class PostgresStore implements LockStore {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresStore.class);

    private final PgConnections connections;
    private final PgSchema schema;
    private final PgWakeUps wakeUps;
    private final LongSupplier nanoTime;
    private final long pollIntervalMs;
    private final String acquireSql;
    private final String releaseSql;
    private final PgInspection inspection;
    private final PgClientRecords records;
    private final PgAllOrNone allOrNone;
    private final PgHandoff handoff;
    private final PgPasses passes;
    private final List<Runnable> closeActions = new CopyOnWriteArrayList<>();

    PostgresStore(PgConnections connections, PgSchema schema, PgWakeUps wakeUps, LongSupplier nanoTime,
                  String keyPrefix, long pollIntervalMs) {
        this.connections = connections;
        this.schema = schema;
        this.wakeUps = wakeUps;
        this.nanoTime = nanoTime;
        this.pollIntervalMs = pollIntervalMs;
        this.acquireSql = "SELECT status, token, hold_count, retry_ms, slot FROM "
                + schema.qualified("dlock_acquire(?, ?::\"char\", ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        this.releaseSql = "SELECT " + schema.qualified("dlock_release(?, ?::\"char\", ?)");
        this.inspection = new PgInspection(connections, schema, keyPrefix);
        this.records = new PgClientRecords(connections, schema);
        this.allOrNone = new PgAllOrNone(connections, schema, wakeUps, nanoTime, pollIntervalMs,
                (target, owner) -> abandon(target, LockKind.REENTRANT, owner));
        this.passes = new PgPasses(connections, schema);
        this.handoff = new PgHandoff(connections, schema, passes, nanoTime);
    }

    @Override
    public String productName() {
        return "PostgreSQL";
    }

    @Override
    public String describe() {
        return connections.address();
    }

    @Override
    public WakeUpSource wakeUps() {
        return wakeUps;
    }

    /** The function's mode of a kind: 'x' queued exclusive, 'w' write, 'r' read, 'p' permit. */
    static String mode(LockKind kind) {
        return switch (kind) {
            case REENTRANT, FAIR -> "x";
            case WRITE -> "w";
            case READ -> "r";
            case PERMIT -> "p";
        };
    }

    /** The mode a hold of the kind is kept in: a write hold is an exclusive one. */
    private static String holdMode(LockKind kind) {
        return kind == LockKind.WRITE ? "x" : mode(kind);
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = nanoTime.getAsLong();
        String owner = request.reentry() ? passes.rowOwner(request.owner()) : request.owner();
        return connections.submit("acquire", c -> {
            try (PreparedStatement call = c.prepareStatement(acquireSql)) {
                call.setString(1, target.key());
                call.setString(2, mode(kind));
                call.setString(3, owner);
                call.setLong(4, request.leaseMs());
                call.setString(5, request.holder() == null ? "" : request.holder());
                call.setBoolean(6, request.reentry());
                call.setString(7, request.waiterId() == null ? "" : request.waiterId());
                call.setLong(8, request.waiterTimeoutMs());
                call.setBoolean(9, request.mayWait());
                call.setString(10, request.downgradeFrom() == null ? "" : request.downgradeFrom());
                call.setInt(11, request.permits());
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    AcquireReply reply = reply(row, startNanos, request.leaseMs());
                    if (kind.handsOffLocally() && !request.reentry() && reply instanceof AcquireReply.Granted grant) {
                        passes.granted(target.key(), owner, grant.token(), grant.validUntilNanos(), request.leaseMs(),
                                startNanos);
                    }
                    return reply;
                }
            }
        }).handle((reply, error) -> {
            if (error == null) {
                return reply;
            }
            LockBackendException failure = connections.failed(request.reentry() ? "re-entry" : "acquire", target.name(), error);
            if (!request.reentry() && PgFailures.kind(PgUrls.unwrap(error)).outcomeUnknown()) {
                abandon(target, kind, request.owner());
                throw new LockBackendException(failure.getMessage() + "; a best-effort release was sent", failure.getCause(),
                        target.name(), failure.nodeErrors());
            }
            throw failure;
        });
    }

    private AcquireReply reply(ResultSet row, long startNanos, long leaseMs) throws SQLException {
        int status = row.getInt(1);
        return switch (status) {
            case 1 -> new AcquireReply.Granted(row.getLong(2), row.getInt(3), validUntilNanos(startNanos, leaseMs));
            case -1 -> new AcquireReply.LostOnReentry();
            case -2 -> new AcquireReply.PermitsDiffer(row.getInt(3));
            default -> new AcquireReply.Busy(wakeUps.polling() ? Math.min(row.getLong(4), pollIntervalMs) : row.getLong(4),
                    false, row.getLong(2));
        };
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        String rowOwner = passes.rowOwner(owner);
        return connections.submit("release", c -> {
            try (PreparedStatement call = c.prepareStatement(releaseSql)) {
                call.setString(1, target.key());
                call.setString(2, holdMode(kind));
                call.setString(3, rowOwner);
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return (long) row.getInt(1);
                }
            }
        }).handle(connections.failing("release", target.name())).whenComplete((left, error) -> {
            if (left != null && left == 0) {
                passes.ended(owner);
                handoff.lockLeft(target.key());
            }
        });
    }

    @Override
    public String storedOwner(String owner) {
        return passes.rowOwner(owner);
    }

    @Override
    public Optional<StoreHandoff> handoff() {
        return Optional.of(handoff);
    }

    @Override
    public Optional<StoreAllOrNone> allOrNone() {
        return Optional.of(allOrNone);
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        String rowOwner = passes.rowOwner(owner);
        passes.ended(owner);
        return bestEffort(target, "release", "dlock_abandon(?, ?)", rowOwner);
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        return bestEffort(target, "leave the queue of", "dlock_abandon(?, ?)", waiterId);
    }

    private CompletableFuture<Void> bestEffort(LockTarget target, String what, String function, String owner) {
        return connections.submit(function.substring("dlock_".length(), function.indexOf('(')), c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified(function))) {
                call.setString(1, target.key());
                call.setString(2, owner);
                call.execute();
                return (Void) null;
            }
        }).handle((done, error) -> {
            if (error != null) {
                LOG.warn("could not {} lock '{}' on {}; its lease or deadline frees it: {}", what, target.name(),
                        connections.address(), PgUrls.unwrap(error).toString());
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return connections.submit("force_release", c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_force_release(?)"))) {
                call.setString(1, target.key());
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return row.getInt(1) > 0;
                }
            }
        }).handle(connections.failing("force release", target.name()));
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs) {
        String[] names = holds.stream().map(hold -> hold.target().key()).toArray(String[]::new);
        String[] owners = holds.stream().map(hold -> passes.rowOwner(hold.owner())).toArray(String[]::new);
        long startNanos = nanoTime.getAsLong();
        return connections.submit("renew", c -> {
            Renewal[] outcome = new Renewal[holds.size()];
            try (PreparedStatement call = c.prepareStatement("SELECT ord, renewed FROM "
                    + schema.qualified("dlock_renew(?::text[], ?::text[], ?)"))) {
                call.setArray(1, c.createArrayOf("text", names));
                call.setArray(2, c.createArrayOf("text", owners));
                call.setLong(3, leaseMs);
                try (ResultSet rows = call.executeQuery()) {
                    while (rows.next()) {
                        int i = rows.getInt(1) - 1;
                        outcome[i] = rows.getBoolean(2) ? Renewal.RENEWED : Renewal.GONE;
                        if (outcome[i] == Renewal.RENEWED) {
                            passes.renewed(holds.get(i).owner(), validUntilNanos(startNanos, leaseMs));
                        } else {
                            passes.ended(holds.get(i).owner());
                        }
                    }
                }
            }
            return outcome;
        }).handle((outcome, error) -> {
            if (error != null) {
                Renewal[] unknown = new Renewal[holds.size()];
                java.util.Arrays.fill(unknown, Renewal.UNKNOWN);
                return unknown;
            }
            return outcome;
        });
    }

    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        return inspection.inspect(target, kind);
    }

    @Override
    public CompletableFuture<LockHolds> holds(LockTarget target) {
        return inspection.holds(target);
    }

    @Override
    public CompletableFuture<List<String>> lockNames(String namePattern) {
        return inspection.lockNames(namePattern);
    }

    @Override
    public CompletableFuture<Long> waitingCount(LockTarget target) {
        return inspection.waitingCount(target);
    }

    @Override
    public CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry) {
        return records.write(entry);
    }

    @Override
    public CompletableFuture<Void> dropClientRecord(String clientId) {
        return records.drop(clientId);
    }

    @Override
    public CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId) {
        return records.read(clientId, threadId);
    }

    @Override
    public long validUntilNanos(long startNanos, long leaseMs) {
        return startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
    }

    /** Deletes what crashed clients left behind (see dlock_sweep); best effort. */
    void sweep() {
        connections.submit("sweep", c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_sweep(?, ?)"))) {
                call.setLong(1, TimeUnit.MINUTES.toMillis(1));
                call.setInt(2, 10_000);
                call.execute();
                return (Void) null;
            }
        }).exceptionally(error -> null);
    }

    void onClose(Runnable action) {
        closeActions.add(action);
    }

    @Override
    public void close() {
        closeActions.forEach(Runnable::run);
        wakeUps.close();
        try {
            connections.run(c -> {
                try (PreparedStatement call = c.prepareStatement("DELETE FROM " + schema.qualified("dlock_listener")
                        + " WHERE listener = ?")) {
                    call.setString(1, wakeUps.listenerName());
                    return call.executeUpdate();
                }
            });
        } catch (SQLException | RuntimeException e) {
            LOG.debug("could not drop the subscriptions of this client; dlock_sweep drops them", e);
        }
        connections.close();
    }
}
