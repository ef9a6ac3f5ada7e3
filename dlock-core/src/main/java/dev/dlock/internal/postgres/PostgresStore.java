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
import dev.dlock.internal.store.StoreHandoff;
import dev.dlock.internal.store.WakeUpSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in PostgreSQL: each operation is one call of one of the functions of {@value
 * PgSchema#RESOURCE} (one transaction, one round trip), on a connection borrowed for the call. A
 * lock's name in the tables is its key ({@code <prefix>{name}}), so clients with other key
 * prefixes share the tables without meeting. Leases are judged on the database's clock; a grant's
 * validity on this process's clock starts at the start of the call, before the database's lease
 * does, so the client never believes in a hold the database has let go.
 */
final class PostgresStore implements LockStore, StoreHandoff {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresStore.class);

    private final PgConnections connections;
    private final PgSchema schema;
    private final PgWakeUps wakeUps;
    private final LongSupplier nanoTime;
    private final String keyPrefix;
    private final long pollIntervalMs;
    private final String acquireSql;
    private final String releaseSql;
    private final String handOffSql;
    private final List<Runnable> closeActions = new java.util.concurrent.CopyOnWriteArrayList<>();

    PostgresStore(PgConnections connections, PgSchema schema, PgWakeUps wakeUps, LongSupplier nanoTime,
                  String keyPrefix, long pollIntervalMs) {
        this.connections = connections;
        this.schema = schema;
        this.wakeUps = wakeUps;
        this.nanoTime = nanoTime;
        this.keyPrefix = keyPrefix;
        this.pollIntervalMs = pollIntervalMs;
        this.acquireSql = "SELECT status, token, hold_count, retry_ms, slot FROM "
                + schema.qualified("dlock_acquire(?, ?::\"char\", ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        this.releaseSql = "SELECT " + schema.qualified("dlock_release(?, ?::\"char\", ?)");
        this.handOffSql = "SELECT outcome, token, waiter FROM " + schema.qualified("dlock_hand_off(?, ?, ?, ?, ?, ?)");
    }

    @Override
    public String describe() {
        return connections.address();
    }

    @Override
    public WakeUpSource wakeUps() {
        return wakeUps;
    }

    /**
     * The result as it is; a failure as every store reports it ({@link PgConnections#failed}): what
     * was done, on which lock, what is known about the outcome.
     */
    private <T> BiFunction<T, Throwable, T> failing(String operation, String lockName) {
        return (result, error) -> {
            if (error != null) {
                throw connections.failed(operation, lockName, error);
            }
            return result;
        };
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
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement(acquireSql)) {
                call.setString(1, target.key());
                call.setString(2, mode(kind));
                call.setString(3, request.owner());
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
                    return reply(row, startNanos, request.leaseMs());
                }
            }
        }).handle((reply, error) -> {
            if (error == null) {
                return reply;
            }
            LockBackendException failure = connections.failed(request.reentry() ? "re-entry" : "acquire", target.name(), error);
            if (!request.reentry() && PgConnections.kind(PgUrls.unwrap(error)).outcomeUnknown()) {
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
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement(releaseSql)) {
                call.setString(1, target.key());
                call.setString(2, holdMode(kind));
                call.setString(3, owner);
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return (long) row.getInt(1);
                }
            }
        }).handle(failing("release", target.name()));
    }

    @Override
    public Optional<StoreHandoff> handoff() {
        return Optional.of(this);
    }

    @Override
    public CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                            long leaseMs, String toWaiterId) {
        long startNanos = nanoTime.getAsLong();
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement(handOffSql)) {
                call.setString(1, target.key());
                call.setString(2, fromOwner);
                call.setInt(3, ownSubscriptions);
                call.setString(4, toOwner);
                call.setLong(5, leaseMs);
                call.setString(6, toWaiterId == null ? "" : toWaiterId);
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return switch (row.getString(1)) {
                        case "own" -> new Reply(new AcquireReply.Granted(row.getLong(2), 1,
                                validUntilNanos(startNanos, leaseMs)), Outcome.HANDED_TO_OWN_WAITER, "");
                        case "queued" -> new Reply(null, Outcome.HANDED_TO_QUEUED, row.getString(3));
                        case "released" -> new Reply(null, Outcome.RELEASED, "");
                        default -> new Reply(null, Outcome.NOT_OWNER, "");
                    };
                }
            }
        }).handle(failing("release", target.name()));
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return bestEffort(target, "release", "dlock_abandon(?, ?)", owner);
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        return bestEffort(target, "leave the queue of", "dlock_abandon(?, ?)", waiterId);
    }

    private CompletableFuture<Void> bestEffort(LockTarget target, String what, String function, String owner) {
        return connections.submit(c -> {
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
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_force_release(?)"))) {
                call.setString(1, target.key());
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return row.getInt(1) > 0;
                }
            }
        }).handle(failing("force release", target.name()));
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs) {
        String[] names = holds.stream().map(hold -> hold.target().key()).toArray(String[]::new);
        String[] owners = holds.stream().map(HeldLock::owner).toArray(String[]::new);
        return connections.submit(c -> {
            Renewal[] outcome = new Renewal[holds.size()];
            try (PreparedStatement call = c.prepareStatement("SELECT ord, renewed FROM "
                    + schema.qualified("dlock_renew(?::text[], ?::text[], ?)"))) {
                call.setArray(1, c.createArrayOf("text", names));
                call.setArray(2, c.createArrayOf("text", owners));
                call.setLong(3, leaseMs);
                try (ResultSet rows = call.executeQuery()) {
                    while (rows.next()) {
                        outcome[rows.getInt(1) - 1] = rows.getBoolean(2) ? Renewal.RENEWED : Renewal.GONE;
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
        return rows(target).thenApply(rows -> view(rows, kind));
    }

    @Override
    public CompletableFuture<LockHolds> holds(LockTarget target) {
        return rows(target).thenApply(rows -> new LockHolds(rows.stream().mapToInt(HoldRow::permits).max().orElse(0),
                rows.stream().map(row -> new LockHolds.HoldState(row.owner(), row.count(), row.token(), row.holder(),
                        row.pttlMs(), row.shared())).toList()));
    }

    /** One live hold as dlock_holds returns it. */
    record HoldRow(String owner, boolean shared, int count, long token, String holder, long pttlMs, long heldMs,
                   int permits) {
    }

    /**
     * The lock as the kind sees it: the write lock its writer; the read lock and the semaphore their
     * shared holds summed up (hold count of all, highest token, longest lease left, held since the
     * oldest, the smallest owner id as owner); the reentrant and fair lock whoever holds it.
     */
    static LockState view(List<HoldRow> rows, LockKind kind) {
        List<HoldRow> exclusive = rows.stream().filter(row -> !row.shared()).toList();
        List<HoldRow> shared = rows.stream().filter(HoldRow::shared).toList();
        if (!"r".equals(kind.mode()) && !exclusive.isEmpty()) {
            HoldRow hold = exclusive.get(0);
            return new LockState(hold.owner(), hold.count(), hold.token(), hold.holder(), hold.pttlMs(), hold.heldMs());
        }
        if ("w".equals(kind.mode()) || shared.isEmpty()) {
            return LockState.FREE;
        }
        HoldRow first = shared.stream().min(Comparator.comparing(HoldRow::owner)).orElseThrow();
        return new LockState(first.owner(), shared.stream().mapToInt(HoldRow::count).sum(),
                shared.stream().mapToLong(HoldRow::token).max().orElse(0), first.holder(),
                shared.stream().mapToLong(HoldRow::pttlMs).max().orElse(0),
                shared.stream().mapToLong(HoldRow::heldMs).max().orElse(0));
    }

    private CompletableFuture<List<HoldRow>> rows(LockTarget target) {
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT owner, mode, hold_count, token, holder, "
                    + "lease_left_ms, held_ms, permits FROM " + schema.qualified("dlock_holds(?)"))) {
                call.setString(1, target.key());
                List<HoldRow> rows = new ArrayList<>();
                try (ResultSet row = call.executeQuery()) {
                    while (row.next()) {
                        rows.add(new HoldRow(row.getString(1), !"x".equals(row.getString(2)), row.getInt(3),
                                row.getLong(4), row.getString(5), row.getLong(6), row.getLong(7), row.getInt(8)));
                    }
                }
                return rows;
            }
        }).handle(failing("inspect", target.name()));
    }

    @Override
    public CompletableFuture<List<String>> lockNames(String namePattern) {
        String keyRegex = "^" + PgGlob.quote(keyPrefix + "{") + PgGlob.toRegex(namePattern) + "\\}$";
        return connections.submit(c -> {
            List<String> names = new ArrayList<>();
            try (PreparedStatement call = c.prepareStatement("SELECT name FROM " + schema.qualified("dlock_names(?, ?)"))) {
                call.setString(1, keyRegex);
                call.setInt(2, 1_000_000);
                try (ResultSet rows = call.executeQuery()) {
                    while (rows.next()) {
                        String key = rows.getString(1);
                        names.add(key.substring(keyPrefix.length() + 1, key.length() - 1));
                    }
                }
            }
            return names;
        }).handle(failing("list", null));
    }

    @Override
    public CompletableFuture<Long> waitingCount(LockTarget target) {
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_waiting_count(?)"))) {
                call.setString(1, target.key());
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return row.getLong(1);
                }
            }
        }).handle(failing("count the waiters", target.name()));
    }

    @Override
    public CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry) {
        StringBuilder threads = new StringBuilder("{");
        for (int i = 0; i + 1 < entry.threads().size(); i += 2) {
            threads.append(i == 0 ? "" : ",").append(json(entry.threads().get(i))).append(':')
                    .append(json(entry.threads().get(i + 1)));
        }
        threads.append('}');
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT "
                    + schema.qualified("dlock_write_client(?, ?, ?, ?, ?, ?, ?::jsonb)"))) {
                call.setString(1, entry.clientId());
                call.setString(2, entry.clientName() == null ? "" : entry.clientName());
                call.setString(3, entry.host() == null ? "" : entry.host());
                call.setLong(4, entry.pid());
                call.setLong(5, entry.ttlMs());
                call.setBoolean(6, entry.replace());
                call.setString(7, threads.toString());
                call.execute();
                return (Void) null;
            }
        }).exceptionally(error -> null);
    }

    @Override
    public CompletableFuture<Void> dropClientRecord(String clientId) {
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement("DELETE FROM " + schema.qualified("dlock_client")
                    + " WHERE client_id = ?")) {
                call.setString(1, clientId);
                call.execute();
                return (Void) null;
            }
        }).exceptionally(error -> null);
    }

    @Override
    public CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId) {
        return connections.submit(c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT client_name, host, pid, threads ->> ? FROM "
                    + schema.qualified("dlock_client") + " WHERE client_id = ? AND expires > clock_timestamp()")) {
                call.setString(1, threadId);
                call.setString(2, clientId);
                try (ResultSet row = call.executeQuery()) {
                    if (!row.next()) {
                        return Optional.<LockHolder>empty();
                    }
                    String thread = row.getString(4);
                    return Optional.of(new LockHolder(row.getString(1), row.getString(2), row.getLong(3),
                            thread == null ? threadId : thread));
                }
            }
        }).exceptionally(error -> Optional.empty());
    }

    @Override
    public long validUntilNanos(long startNanos, long leaseMs) {
        return startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
    }

    /** Deletes what crashed clients left behind (see dlock_sweep); best effort. */
    void sweep() {
        connections.submit(c -> {
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

    private static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : text.toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
