package dev.dlock.internal.postgres;

import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockTarget;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What {@code info()}, {@code status}, {@code list} and {@code top} read from PostgreSQL: the live
 * holds of a name (dlock_holds), each kind's view of them, the names that match a pattern, and the
 * clients waiting. Reads only.
 */
final class PgInspection {

    private final PgConnections connections;
    private final PgSchema schema;
    private final String keyPrefix;

    PgInspection(PgConnections connections, PgSchema schema, String keyPrefix) {
        this.connections = connections;
        this.schema = schema;
        this.keyPrefix = keyPrefix;
    }

    CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        return rows(target).thenApply(rows -> view(rows, kind));
    }

    CompletableFuture<LockHolds> holds(LockTarget target) {
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
        return connections.submit("holds", c -> {
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
        }).handle(connections.failing("inspect", target.name()));
    }

    CompletableFuture<List<String>> lockNames(String namePattern) {
        String keyRegex = "^" + PgGlob.quote(keyPrefix + "{") + PgGlob.toRegex(namePattern) + "\\}$";
        return connections.submit("names", c -> {
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
        }).handle(connections.failing("list", null));
    }

    CompletableFuture<Long> waitingCount(LockTarget target) {
        return connections.submit("waiting_count", c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_waiting_count(?)"))) {
                call.setString(1, target.key());
                try (ResultSet row = call.executeQuery()) {
                    row.next();
                    return row.getLong(1);
                }
            }
        }).handle(connections.failing("count the waiters", target.name()));
    }
}
