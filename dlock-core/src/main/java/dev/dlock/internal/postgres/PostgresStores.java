package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.StoreContext;
import dev.dlock.internal.store.StoreFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The PostgreSQL backend's entry: a {@link StoreFactory} for the client's builder. Opening checks
 * the schema (creating it when allowed), starts the client's LISTEN connection (or finds that
 * LISTEN does not work and polls) and fails loudly when the database cannot be used.
 */
public final class PostgresStores {

    /** How waiters learn of releases. */
    public enum WakeUps {
        /** LISTEN/NOTIFY, after a probe at start shows that a NOTIFY arrives; else polling. */
        AUTO,
        /** LISTEN/NOTIFY, without a probe. */
        LISTEN,
        /** Polling only (PgBouncer in transaction pooling, where LISTEN does not work). */
        POLL
    }

    /**
     * @param schema       the schema of dlock's tables and functions
     * @param createSchema whether dlock creates them when they are missing
     * @param wakeUps      how waiters learn of releases
     * @param pollInterval how often a waiter asks again when polling
     * @param connections  the calls in flight at once (store threads; with a URL, also connections)
     */
    public record Options(String schema, boolean createSchema, WakeUps wakeUps, Duration pollInterval, int connections) {

        public static final Options DEFAULTS = new Options("public", true, WakeUps.AUTO, Duration.ofMillis(100), 8);

        public Options {
            if (schema == null || schema.isBlank()) {
                throw new IllegalArgumentException("PostgreSQL schema must not be blank, got '" + schema + "'");
            }
            if (pollInterval == null || pollInterval.toMillis() < 1) {
                throw new IllegalArgumentException("PostgreSQL poll interval must be at least 1 ms, got " + pollInterval);
            }
            if (connections < 1) {
                throw new IllegalArgumentException("PostgreSQL connections must be at least 1, got " + connections);
            }
        }
    }

    private PostgresStores() {
    }

    /** Locks in the database of the application's pool. */
    public static StoreFactory dataSource(DataSource dataSource, Options options) {
        if (dataSource == null) {
            throw new IllegalArgumentException("PostgreSQL DataSource must not be null");
        }
        return context -> open(PgConnections.of(dataSource, commandTimeoutMs(context), options.connections()),
                context, options);
    }

    /**
     * Locks in the database of a {@code jdbc:postgresql://host:port/db?user=...&password=...} URL
     * (also {@code postgresql://...} and {@code postgres://...}), on connections of the client's own.
     *
     * @throws IllegalArgumentException naming the URL when it is not a PostgreSQL URL
     */
    public static StoreFactory url(String url, Options options) {
        String jdbcUrl = jdbcUrl(url);
        return context -> open(PgConnections.of(jdbcUrl, commandTimeoutMs(context), options.connections()),
                context, options);
    }

    /**
     * The JDBC form of a PostgreSQL URL: a JDBC URL, or libpq's ({@code postgresql://user:password@host:port/db},
     * {@code postgres://...}, several hosts, {@code target_session_attrs}; see {@link PgUrls#toJdbc}).
     *
     * @throws IllegalArgumentException not a PostgreSQL URL, or a form the JDBC driver cannot take; the
     *     message names the form that works, never the password
     */
    public static String jdbcUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("PostgreSQL URL must not be blank");
        }
        url = url.strip();
        if (!url.startsWith("jdbc:postgresql:") && !url.startsWith("postgresql://") && !url.startsWith("postgres://")) {
            throw new IllegalArgumentException("not a PostgreSQL URL: '" + PgUrls.withoutCredentials(url)
                    + "' (expected postgresql://user:password@host:5432/database or "
                    + "jdbc:postgresql://host:5432/database?user=...&password=...)");
        }
        String jdbc = PgUrls.toJdbc(url);
        try {
            Class.forName("org.postgresql.Driver");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the PostgreSQL JDBC driver is not on the class path: add the dependency "
                    + "org.postgresql:postgresql", e);
        }
        return jdbc;
    }

    /**
     * A server in recovery takes no writes: every lock would wait out its outage tolerance. At
     * start that is a wrong address, not an outage; later (a failover behind a virtual address)
     * a read-only answer is an outage, waited out as any other.
     */
    private static void refuseStandby(Connection connection, String address) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT pg_is_in_recovery()")) {
            if (row.next() && row.getBoolean(1)) {
                String message = "PostgreSQL at " + address + " is a standby (in recovery, read-only): dlock needs the "
                        + "primary; give the primary's address, or every node's with target_session_attrs=read-write "
                        + "(postgresql://user:password@host1:5432,host2:5432/db?target_session_attrs=read-write; in a "
                        + "JDBC URL targetServerType=primary)";
                throw new LockBackendException(message, null, null,
                        List.of(new NodeError(address, NodeError.Cause.REFUSED, message)));
            }
        }
    }

    private static long commandTimeoutMs(StoreContext context) {
        return context.settings().commandTimeout().toMillis();
    }

    private static PostgresStore open(PgConnections connections, StoreContext context, Options options) {
        connections.observedBy(context.observer());
        PgSchema schema = new PgSchema(options.schema());
        PgWakeUps wakeUps = null;
        try {
            // creating the schema takes longer than one lock operation: a minute at most
            connections.run(c -> {
                refuseStandby(c, connections.address());
                schema.ensure(c, options.createSchema(), connections.address());
                return null;
            }, 60_000);
            wakeUps = PgWakeUps.start(connections, schema, options.wakeUps() != WakeUps.POLL,
                    options.wakeUps() == WakeUps.AUTO);
            if (wakeUps.polling()) {
                connections.prepareNothing();
            }
            PostgresStore store = new PostgresStore(connections, schema, wakeUps, context.ticker()::nanoTime,
                    context.settings().keyPrefix(), options.pollInterval().toMillis());
            ScheduledFuture<?> sweeps = context.ticker().scheduleAtFixedRate(store::sweep, 1, 60, TimeUnit.SECONDS);
            store.onClose(() -> sweeps.cancel(false));
            return store;
        } catch (SQLException | RuntimeException e) {
            if (wakeUps != null) {
                wakeUps.close();
            }
            connections.close();
            if (e instanceof LockBackendException backend) {
                throw backend;
            }
            if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
                throw (RuntimeException) e;
            }
            throw new LockBackendException("could not use PostgreSQL at " + connections.address() + ": "
                    + (e.getMessage() == null ? e.toString() : e.getMessage().strip()), e, null,
                    List.of(new NodeError(connections.address(), PgFailures.kind(e),
                            e.getMessage() == null ? e.toString() : e.getMessage().strip())));
        }
    }
}
