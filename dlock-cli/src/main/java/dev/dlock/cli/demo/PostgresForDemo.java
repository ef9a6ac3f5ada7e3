package dev.dlock.cli.demo;

import dev.dlock.LockBackendException;
import dev.dlock.LockClientBuilder;
import dev.dlock.PostgresUrls;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.UsageException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The demo on PostgreSQL ({@code --postgres URL} or {@code DLOCK_POSTGRES_URL}): the locks in
 * dlock's tables, the stock and orders in the demo's own ({@link PostgresStockroom}). The demo
 * starts no PostgreSQL of its own (that takes initdb, the server's binaries and, as root, another
 * OS user): with none reachable it says what to pass.
 */
final class PostgresForDemo implements DemoStore {

    static final String WHAT_TO_PASS = "give --postgres jdbc:postgresql://HOST:5432/DATABASE?user=USER&password=PASSWORD "
            + "of a running PostgreSQL (or set DLOCK_POSTGRES_URL); the demo starts none of its own, and without "
            + "either option it runs on Redis";

    private final DlockCommand.PostgresSource source;
    private final String jdbcUrl;
    private final String address;

    private PostgresForDemo(DlockCommand.PostgresSource source, String jdbcUrl) {
        this.source = source;
        this.jdbcUrl = jdbcUrl;
        this.address = PostgresUrls.withoutCredentials(jdbcUrl);
    }

    /**
     * Connects once, creating the demo's tables when missing.
     *
     * @throws UsageException the server refused the credentials or has no such database
     * @throws LockBackendException no PostgreSQL answers at the URL, or it failed
     */
    static PostgresForDemo connect(DlockCommand.PostgresSource source) {
        PostgresForDemo database = new PostgresForDemo(source, jdbcUrl(source.url()));
        try (Connection connection = database.connect()) {
            PostgresStockroom.prepare(connection);
        } catch (SQLException e) {
            throw database.failure(e);
        }
        return database;
    }

    Connection connect() throws SQLException {
        return PostgresStockroom.open(jdbcUrl);
    }

    String address() {
        return address;
    }

    @Override
    public String announcement() {
        return "postgres: using " + source.origin() + " " + address + " (stock and orders in the tables "
                + PostgresStockroom.STOCK_TABLE + " and " + PostgresStockroom.ORDER_TABLE + ")";
    }

    @Override
    public LockClientBuilder lockClient(DlockCommand dlock) {
        return dlock.clientBuilder();
    }

    @Override
    public Stockroom openStockroom() {
        return new PostgresStockroom(this);
    }

    @Override
    public RuntimeException connectFailure(RuntimeException failure) {
        return failure;
    }

    @Override
    public void close() {
        // nothing of its own: each stockroom closes its connections
    }

    private RuntimeException failure(SQLException e) {
        String state = String.valueOf(e.getSQLState());
        String reason = firstLine(e.getMessage());
        String what = "PostgreSQL at " + address + " (" + source.origin() + "): "
                + (reason.endsWith(".") ? reason.substring(0, reason.length() - 1) : reason);
        if (state.startsWith("08")) {
            return new LockBackendException("cannot connect to " + what + ". " + capitalised(WHAT_TO_PASS), e);
        }
        if (state.startsWith("28") || state.equals("3D000")) {
            return new UsageException(what + "; check the user, password and database in the URL", e);
        }
        return new LockBackendException("cannot create the demo's tables in " + what, e);
    }

    /**
     * The URL as the JDBC driver takes it, converted as the lock client converts it (libpq's
     * {@code postgresql://user:password@host/db} included).
     *
     * @throws UsageException a form the driver cannot take, named with the one that works
     */
    static String jdbcUrl(String url) {
        try {
            return PostgresUrls.jdbc(url);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    private static String firstLine(String message) {
        String text = String.valueOf(message).strip();
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline).strip();
    }

    private static String capitalised(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}
