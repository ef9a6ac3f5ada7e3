package dev.dlock.internal.postgres;

import dev.dlock.LockHolder;
import dev.dlock.internal.store.ClientRecordEntry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Client records in {@code dlock_client}: who a client is (name, host, pid, its threads' names),
 * so that an inspection can name the holder of a reentrant lock whose row stores only its owner id.
 * Best effort: a failure is never a lock's failure.
 */
final class PgClientRecords {

    private final PgConnections connections;
    private final PgSchema schema;

    PgClientRecords(PgConnections connections, PgSchema schema) {
        this.connections = connections;
        this.schema = schema;
    }

    CompletableFuture<Void> write(ClientRecordEntry entry) {
        StringBuilder threads = new StringBuilder("{");
        for (int i = 0; i + 1 < entry.threads().size(); i += 2) {
            threads.append(i == 0 ? "" : ",").append(json(entry.threads().get(i))).append(':')
                    .append(json(entry.threads().get(i + 1)));
        }
        threads.append('}');
        return connections.submit("write_client", c -> {
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

    CompletableFuture<Void> drop(String clientId) {
        return connections.submit("drop_client", c -> {
            try (PreparedStatement call = c.prepareStatement("DELETE FROM " + schema.qualified("dlock_client")
                    + " WHERE client_id = ?")) {
                call.setString(1, clientId);
                call.execute();
                return (Void) null;
            }
        }).exceptionally(error -> null);
    }

    CompletableFuture<Optional<LockHolder>> read(String clientId, String threadId) {
        return connections.submit("read_client", c -> {
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
