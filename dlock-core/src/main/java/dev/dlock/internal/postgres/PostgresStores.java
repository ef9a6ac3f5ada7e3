package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.internal.store.StoreContext;
import dev.dlock.internal.store.StoreFactory;
import java.sql.SQLException;
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

    /** The JDBC form of a PostgreSQL URL. */
    public static String jdbcUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("PostgreSQL URL must not be blank");
        }
        String jdbc = url.startsWith("jdbc:postgresql:") ? url
                : url.startsWith("postgresql://") ? "jdbc:" + url
                : url.startsWith("postgres://") ? "jdbc:postgresql://" + url.substring("postgres://".length())
                : null;
        if (jdbc == null) {
            throw new IllegalArgumentException("not a PostgreSQL URL: '" + PgUrls.withoutCredentials(url)
                    + "' (expected jdbc:postgresql://host:port/database?user=...&password=...)");
        }
        try {
            Class.forName("org.postgresql.Driver");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the PostgreSQL JDBC driver is not on the class path: add the dependency "
                    + "org.postgresql:postgresql", e);
        }
        return jdbc;
    }

    private static long commandTimeoutMs(StoreContext context) {
        return context.settings().commandTimeout().toMillis();
    }

    private static PostgresStore open(PgConnections connections, StoreContext context, Options options) {
        PgSchema schema = new PgSchema(options.schema());
        PgWakeUps wakeUps = null;
        try {
            // creating the schema takes longer than one lock operation: a minute at most
            connections.run(c -> {
                schema.ensure(c, options.createSchema(), connections.address());
                return null;
            }, 60_000);
            wakeUps = PgWakeUps.start(connections, schema, options.wakeUps() != WakeUps.POLL,
                    options.wakeUps() == WakeUps.AUTO);
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
                    List.of(new dev.dlock.NodeError(connections.address(), PgConnections.kind(e),
                            e.getMessage() == null ? e.toString() : e.getMessage().strip())));
        }
    }
}
