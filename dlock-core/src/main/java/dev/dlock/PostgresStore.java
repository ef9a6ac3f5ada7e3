package dev.dlock;

import dev.dlock.internal.postgres.PostgresStores;
import dev.dlock.internal.settings.ClientLibraries;
import dev.dlock.internal.store.StoreFactory;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The locks in PostgreSQL, through the PostgreSQL JDBC driver ({@code org.postgresql:postgresql}, which the
 * application adds: an optional dependency of dlock-core): every lock kind, lease, watchdog renewal, fencing
 * token, fair queue, handoff and loss notice works as on Redis, with leases judged on the database's clock.
 * dlock's tables and functions are created on first use unless {@link #createSchema(boolean)} says not to.
 * Immutable: the options below return a new value. See docs/deployments.md.
 *
 * <pre>{@code
 * LockClient.builder().store(PostgresStore.dataSource(hikari).schema("locks"))
 * LockClient.builder().store(PostgresStore.url("postgresql://app:secret@db:5432/app"))
 * }</pre>
 */
public final class PostgresStore implements Store {

    private final DataSource dataSource;
    private final String jdbcUrl;
    private final PostgresStores.Options options;

    private PostgresStore(DataSource dataSource, String jdbcUrl, PostgresStores.Options options) {
        this.dataSource = dataSource;
        this.jdbcUrl = jdbcUrl;
        this.options = options;
    }

    /**
     * On connections from the application's pool (for example HikariCP); the client keeps one connection
     * of the pool for LISTEN.
     *
     * @param dataSource the application's DataSource of a PostgreSQL database
     * @return the store
     * @throws IllegalArgumentException the DataSource is null
     * @throws IllegalStateException the PostgreSQL JDBC driver is not on the class path
     */
    public static PostgresStore dataSource(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("PostgresStore.dataSource: the DataSource must not be null");
        }
        requireDriver();
        return new PostgresStore(dataSource, null, PostgresStores.Options.DEFAULTS);
    }

    /**
     * On connections of the client's own (at most 9) to
     * {@code jdbc:postgresql://host[:port]/database?user=...&password=...} (any PgJDBC parameter may follow)
     * or libpq's {@code postgresql://user:password@host[:port][,host[:port]...]/database} (also
     * {@code postgres://}; percent-encoded; {@code target_session_attrs}, {@code application_name},
     * {@code connect_timeout} and PgJDBC's parameters may follow).
     *
     * @param url the database's URL
     * @return the store
     * @throws IllegalArgumentException the URL is not a PostgreSQL URL, or a form the JDBC driver cannot take (a
     *     Unix socket, {@code service=}, {@code passfile=}); the message names the form that works and quotes
     *     the URL without credentials
     * @throws IllegalStateException the PostgreSQL JDBC driver is not on the class path
     */
    public static PostgresStore url(String url) {
        requireDriver();
        String jdbc = PostgresStores.jdbcUrl(url);
        return new PostgresStore(null, jdbc, PostgresStores.Options.DEFAULTS);
    }

    /**
     * The schema of dlock's tables and functions. Default {@code public}.
     *
     * @param schema the schema's name, as it is (not folded to lower case)
     * @return a copy of this store in that schema
     * @throws IllegalArgumentException the name is null or blank
     */
    public PostgresStore schema(String schema) {
        return new PostgresStore(dataSource, jdbcUrl, new PostgresStores.Options(schema, options.createSchema(),
                options.wakeUps(), options.pollInterval(), options.connections()));
    }

    /**
     * Whether {@link LockClientBuilder#build()} creates dlock's tables and functions when they are missing, or
     * brings them to the current version (default true). With false, a missing or older schema fails the build
     * naming the SQL files to run ({@code dev/dlock/postgres/V1__dlock.sql}, then {@code V2__dlock.sql}, {@code V3__dlock.sql} and {@code V4__dlock.sql}, for
     * Flyway or Liquibase).
     *
     * @param create whether to create the schema on first use
     * @return a copy of this store with that choice
     */
    public PostgresStore createSchema(boolean create) {
        return new PostgresStore(dataSource, jdbcUrl, new PostgresStores.Options(options.schema(), create,
                options.wakeUps(), options.pollInterval(), options.connections()));
    }

    /**
     * Waiters poll at this interval instead of listening for NOTIFY, as behind PgBouncer in transaction
     * pooling (where LISTEN does not work; the client also finds that out by itself at start, and then polls
     * every 100 ms). A handoff then reaches its waiter within one interval, and a forced release is noticed at
     * the next renewal.
     *
     * @param interval how often a waiter asks again, at least 1 ms
     * @return a copy of this store that polls
     * @throws IllegalArgumentException the interval is null or shorter than 1 ms
     */
    public PostgresStore polling(Duration interval) {
        return new PostgresStore(dataSource, jdbcUrl, new PostgresStores.Options(options.schema(),
                options.createSchema(), PostgresStores.WakeUps.POLL, interval, options.connections()));
    }

    StoreFactory factory() {
        return dataSource != null ? PostgresStores.dataSource(dataSource, options) : PostgresStores.url(jdbcUrl, options);
    }

    @Override
    public String toString() {
        return "PostgresStore(" + (dataSource != null ? "a DataSource" : PostgresUrls.withoutCredentials(jdbcUrl))
                + ", schema " + options.schema() + ")";
    }

    static void requireDriver() {
        ClientLibraries.require("PostgresStore", "org.postgresql.Driver", "org.postgresql:postgresql");
    }
}
