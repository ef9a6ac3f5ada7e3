package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.StoreAllOrNone;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * A multi-lock's names in one call of {@code dlock_acquire_all}: one transaction, one round trip,
 * all the names or none.
 */
final class PgAllOrNone implements StoreAllOrNone {

    private final PgConnections connections;
    private final PgWakeUps wakeUps;
    private final LongSupplier nanoTime;
    private final long pollIntervalMs;
    private final String acquireAllSql;
    /** Best effort: drops every hold of an owner on a target (after an attempt whose outcome is unknown). */
    private final BiConsumer<LockTarget, String> abandon;

    PgAllOrNone(PgConnections connections, PgSchema schema, PgWakeUps wakeUps, LongSupplier nanoTime, long pollIntervalMs,
                BiConsumer<LockTarget, String> abandon) {
        this.connections = connections;
        this.wakeUps = wakeUps;
        this.nanoTime = nanoTime;
        this.pollIntervalMs = pollIntervalMs;
        this.abandon = abandon;
        this.acquireAllSql = "SELECT ord, status, token, retry_ms FROM "
                + schema.qualified("dlock_acquire_all(?::text[], ?::text[], ?, ?, ?, ?, ?)");
    }

    @Override
    public CompletableFuture<Reply> acquireAll(List<LockTarget> targets, List<String> owners, long leaseMs, String holder,
                                               String waiterId, long waiterTimeoutMs, boolean mayWait) {
        long startNanos = nanoTime.getAsLong();
        String[] names = targets.stream().map(LockTarget::key).toArray(String[]::new);
        return connections.submit("acquire_all", c -> {
            try (PreparedStatement call = c.prepareStatement(acquireAllSql)) {
                call.setArray(1, c.createArrayOf("text", names));
                call.setArray(2, c.createArrayOf("text", owners.toArray(String[]::new)));
                call.setLong(3, leaseMs);
                call.setString(4, holder == null ? "" : holder);
                call.setString(5, waiterId == null ? "" : waiterId);
                call.setLong(6, waiterTimeoutMs);
                call.setBoolean(7, mayWait);
                List<AcquireReply.Granted> grants = new ArrayList<>();
                long validUntilNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
                try (ResultSet rows = call.executeQuery()) {
                    while (rows.next()) {
                        if (rows.getInt(2) != 1) {
                            long retryMs = rows.getLong(4);
                            return new Reply(null, rows.getInt(1) - 1, new AcquireReply.Busy(
                                    wakeUps.polling() ? Math.min(retryMs, pollIntervalMs) : retryMs, false, rows.getLong(3)));
                        }
                        grants.add(new AcquireReply.Granted(rows.getLong(3), 1, validUntilNanos));
                    }
                }
                if (grants.size() != targets.size()) {
                    throw new IllegalStateException("dlock_acquire_all granted " + grants.size() + " of "
                            + targets.size() + " names");
                }
                return new Reply(List.copyOf(grants), -1, null);
            }
        }).handle((reply, error) -> {
            if (error == null) {
                return reply;
            }
            String name = targets.stream().map(LockTarget::name).toList().toString();
            LockBackendException failure = connections.failed("acquire", name, error);
            if (PgFailures.kind(PgUrls.unwrap(error)).outcomeUnknown()) {
                for (int i = 0; i < targets.size(); i++) {
                    abandon.accept(targets.get(i), owners.get(i));
                }
                throw new LockBackendException(failure.getMessage() + "; a best-effort release was sent",
                        failure.getCause(), name, failure.nodeErrors());
            }
            throw failure;
        });
    }
}
