package dev.dlock.cli.doctor;

import dev.dlock.PostgresUrls;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGConnection;

/**
 * One plain connection to PostgreSQL for {@code dlock doctor}, as dlock's role at the URL sees the
 * server: settings, catalogs and statistics, read only. The server timeouts of that role are read
 * first, then lifted for the doctor's own session (unless a pooler shares it with other clients),
 * so that they do not cut its checks.
 */
final class DoctorDatabase implements AutoCloseable {

    /** The server timeouts dlock's calls and connections can meet, as {@code pg_settings} names them. */
    static final List<String> TIMEOUTS = List.of("statement_timeout", "lock_timeout", "idle_session_timeout",
            "idle_in_transaction_session_timeout");
    private static final int TIMEOUT_MS = (int) DoctorNode.TIMEOUT.toMillis();

    private final String jdbcUrl;
    private final Connection connection;
    private final String label;
    private final Map<String, Timeout> roleTimeouts = new LinkedHashMap<>();
    private boolean pooled;

    /**
     * A server timeout's value.
     *
     * @param ms    in milliseconds, 0 for none
     * @param shown as PostgreSQL shows it ({@code 500ms}, {@code 1min})
     */
    record Timeout(long ms, String shown) {
    }

    private DoctorDatabase(String jdbcUrl, Connection connection, String label) {
        this.jdbcUrl = jdbcUrl;
        this.connection = connection;
        this.label = label;
    }

    /**
     * Connects as a client of dlock would to the URL ({@code jdbc:postgresql:}, {@code postgresql://},
     * {@code postgres://}).
     *
     * @throws SQLException the server cannot be reached or refuses the credentials
     */
    static DoctorDatabase connect(String url) throws SQLException {
        return open(PostgresUrls.jdbc(url), labelOf(url));
    }

    /** {@code postgresql://host:port/database} of a URL as {@link #connect} takes it, never with the credentials. */
    static String labelOf(String url) {
        return label(PostgresUrls.jdbc(url));
    }

    private static DoctorDatabase open(String jdbcUrl, String label) throws SQLException {
        Properties properties = new Properties();
        // the URL's own parameters win over these
        properties.setProperty("connectTimeout", Long.toString(DoctorNode.TIMEOUT.toSeconds()));
        properties.setProperty("ApplicationName", "dlock doctor");
        // the doctor's statements must also pass a pooler in transaction pooling
        properties.setProperty("prepareThreshold", "0");
        Connection connection = DriverManager.getConnection(jdbcUrl, properties);
        try {
            connection.setNetworkTimeout(Runnable::run, TIMEOUT_MS);
            DoctorDatabase database = new DoctorDatabase(jdbcUrl, connection, label);
            for (String name : TIMEOUTS) {
                // no row on a server without the setting (idle_session_timeout came with PostgreSQL 14)
                for (List<String> row : database.rows("SELECT setting, current_setting(name) FROM pg_settings "
                        + "WHERE name = ?", name)) {
                    database.roleTimeouts.put(name, new Timeout(Long.parseLong(row.get(0)), row.get(1)));
                }
            }
            // a session of PostgreSQL's own has the process id it announced at the start; a pooler announces one of its own
            database.pooled = database.announcedPid() != database.backendPid();
            // behind a pooler the session is shared with other clients, and a setting would stay with it
            if (!database.pooled) {
                database.rows("SELECT set_config(name, '0', false) FROM pg_settings WHERE name = ANY (?)",
                        (Object) TIMEOUTS.toArray(String[]::new));
            }
            return database;
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private static String label(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, null);
        if (parsed == null) {
            return "postgresql";
        }
        String[] hosts = parsed.getProperty("PGHOST", "localhost").split(",");
        String[] ports = parsed.getProperty("PGPORT", "5432").split(",");
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < hosts.length; i++) {
            addresses.add(hosts[i] + ":" + ports[Math.min(i, ports.length - 1)]);
        }
        return "postgresql://" + String.join(",", addresses) + "/" + parsed.getProperty("PGDBNAME", "");
    }

    /** Another connection to the same URL, for the checks that need two sessions. */
    DoctorDatabase another() throws SQLException {
        return open(jdbcUrl, label);
    }

    String label() {
        return label;
    }

    Connection connection() {
        return connection;
    }

    /** A parameter of the URL as the driver reads it ({@code prepareThreshold}, ...), or null. */
    String urlParameter(String name) {
        Properties parsed = Driver.parseURL(jdbcUrl, null);
        return parsed == null ? null : parsed.getProperty(name);
    }

    /** The server timeouts as dlock's role sees them (its own and its database's settings), by name. */
    Map<String, Timeout> roleTimeouts() {
        return roleTimeouts;
    }

    /** A setting as the role sees it ({@code current_setting}), or null when the server has no such setting. */
    String setting(String name) throws SQLException {
        return text("SELECT current_setting(?, true)", name);
    }

    /** Whether a pooler (PgBouncer or the like) stands between this connection and PostgreSQL. */
    boolean pooled() {
        return pooled;
    }

    /** The process id of the server session this connection runs on now. */
    int backendPid() throws SQLException {
        return Integer.parseInt(text("SELECT pg_backend_pid()"));
    }

    /** The process id the server announced when this connection started (a pooler announces one of its own). */
    int announcedPid() throws SQLException {
        return connection.unwrap(PGConnection.class).getBackendPID();
    }

    /** The first column of the first row as text, or null when there is no row. */
    String text(String sql, Object... parameters) throws SQLException {
        List<List<String>> rows = rows(sql, parameters);
        return rows.isEmpty() ? null : rows.get(0).get(0);
    }

    /** Every row, each column as text (null as null). */
    List<List<String>> rows(String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                Object parameter = parameters[i];
                if (parameter instanceof String[] array) {
                    statement.setArray(i + 1, connection.createArrayOf("text", array));
                } else {
                    statement.setObject(i + 1, parameter);
                }
            }
            List<List<String>> rows = new ArrayList<>();
            try (ResultSet result = statement.executeQuery()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    List<String> row = new ArrayList<>();
                    for (int column = 1; column <= columns; column++) {
                        row.add(result.getString(column));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    /** A statement without rows ({@code LISTEN}, {@code UNLISTEN}). */
    void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // a connection the server already closed: nothing left to do
        }
    }
}
