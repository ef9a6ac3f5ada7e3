package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * dlock's tables and functions in one schema ({@link #RESOURCES}, each version's file after the
 * last): checked at start, created or brought to the current version on first use when allowed. A missing table with creation off, or a table of another shape, is an
 * error at start that names the SQL to run or the columns that differ, never a lock that fails later.
 */
final class PgSchema {

    /**
     * The versioned SQL files, on the class path (and in dlock-core's jar), in the order they run:
     * each takes a schema of the version before to its own; all are idempotent.
     */
    static final List<String> RESOURCES = List.of("dev/dlock/postgres/V1__dlock.sql", "dev/dlock/postgres/V2__dlock.sql",
            "dev/dlock/postgres/V3__dlock.sql", "dev/dlock/postgres/V4__dlock.sql");
    /** The files as messages name them. */
    static final String FILES = String.join(" then ", RESOURCES);
    /** The version of the last file, which dlock_schema_version() returns. */
    static final int VERSION = RESOURCES.size();

    /** Each table's columns as format_type names them, in order. */
    private static final Map<String, Map<String, String>> TABLES = Map.of(
            "dlock_hold", columns("name", "text", "owner", "text", "mode", "\"char\"", "hold_count", "integer",
                    "token", "bigint", "lease_end", "timestamp with time zone", "since", "timestamp with time zone",
                    "holder", "text", "permits", "integer", "slot", "integer"),
            "dlock_waiter", columns("name", "text", "waiter_id", "text", "mode", "\"char\"", "ticket", "bigint",
                    "deadline", "timestamp with time zone", "lease_ms", "bigint", "holder", "text"),
            "dlock_listener", columns("channel", "text", "listener", "text", "pid", "integer"),
            "dlock_client", columns("client_id", "text", "client_name", "text", "host", "text", "pid", "bigint",
                    "threads", "jsonb", "expires", "timestamp with time zone"));

    private final String schema;

    PgSchema(String schema) {
        this.schema = schema;
    }

    /** {@code "schema".object}, quoted as an identifier. */
    String qualified(String object) {
        return quote(schema) + "." + object;
    }

    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /**
     * Makes sure the schema is there and of the right shape; creates it when it is missing and
     * {@code create} allows.
     *
     * @throws LockBackendException naming the SQL to run, or the columns that differ
     */
    void ensure(Connection connection, boolean create, String address) throws SQLException {
        // the shape first: the file's functions would not even be created over a foreign table
        String shape = wrongShape(connection);
        if (shape != null) {
            throw refused(address, "dlock's table " + shape + " in schema " + quote(schema) + " on " + address
                    + ": it is not dlock's (the expected shape is in " + RESOURCES.get(0) + "); drop or rename it, or give dlock "
                    + "another schema");
        }
        List<String> missing = missingTables(connection);
        int version = missing.isEmpty() ? installedVersion(connection) : 0;
        if (version >= VERSION) {
            // a later build's schema (during a rolling upgrade): its files keep every function this
            // build calls, and running this build's files over it would take its functions back
            return;
        }
        if (!create) {
            String found = !missing.isEmpty() ? "dlock's schema is missing in schema " + quote(schema) + " on " + address
                    + " (no table " + String.join(", ", missing) + ")"
                    : version > 0 ? "dlock's schema in schema " + quote(schema) + " on " + address + " is of version "
                    + version + ", this dlock needs version " + VERSION
                    : "dlock's schema is missing in schema " + quote(schema) + " on " + address
                    + " (its functions are missing or of another version)";
            String files = version > 0 && version < VERSION
                    ? String.join(" then ", RESOURCES.subList(version, VERSION)) : FILES;
            throw refused(address, found + " and creating it is turned off: run the SQL files " + files
                    + " (in dlock-core's jar; they are Flyway and Liquibase friendly) with search_path set to "
                    + quote(schema) + ", or allow dlock to create it");
        }
        try {
            createIn(connection);
        } catch (SQLException e) {
            if (!PgFailures.isRefusal(e.getSQLState())) {
                throw e;
            }
            throw refused(address, "dlock could not create its schema in " + quote(schema) + " on " + address + ": "
                    + String.valueOf(e.getMessage()).strip() + ": grant the role CREATE there, or run the SQL files "
                    + FILES + " as a role that may and turn dlock's schema creation off");
        }
    }

    /** A configuration error no retry mends, as {@link dev.dlock.NodeError.Cause#REFUSED}. */
    private static LockBackendException refused(String address, String message) {
        return new LockBackendException(message, null, null, List.of(new NodeError(address, NodeError.Cause.REFUSED, message)));
    }

    private void createIn(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            // only when missing: CREATE SCHEMA IF NOT EXISTS asks for CREATE on the database even when it exists
            if (!schemaExists(connection)) {
                statement.execute("CREATE SCHEMA " + quote(schema));
            }
            statement.execute("SET LOCAL search_path TO " + quote(schema));
            for (String resource : RESOURCES) {
                statement.execute(sqlFile(resource));
            }
            connection.commit();
        } catch (SQLException e) {
            if (!connection.isClosed()) {
                connection.rollback();
            }
            throw e;
        } finally {
            if (!connection.isClosed()) {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    private boolean schemaExists(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** The text of one of the SQL files. */
    static String sqlFile(String resource) {
        try (InputStream in = PgSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> missingTables(Connection connection) throws SQLException {
        List<String> missing = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT to_regclass(?)")) {
            for (String table : TABLES.keySet().stream().sorted().toList()) {
                query.setString(1, qualified(table));
                try (ResultSet rows = query.executeQuery()) {
                    rows.next();
                    if (rows.getString(1) == null) {
                        missing.add(table);
                    }
                }
            }
        }
        return missing;
    }

    /**
     * The version dlock_schema_version() reports, or 0 when it is missing or the functions are of
     * an earlier build of version 1 (one lacks a function added since, or has one with fewer
     * arguments: running the files again replaces them).
     */
    private int installedVersion(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT count(*) FILTER (WHERE p.proname = 'dlock_schema_version'), "
                        + "count(*) FILTER (WHERE p.proname = 'dlock_acquire_all' "
                        + "OR (p.proname = 'dlock_hand_off' AND p.pronargs = 7)) "
                        + "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ?")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                if (!rows.next() || rows.getInt(1) == 0 || rows.getInt(2) != 2) {
                    return 0;
                }
            }
        }
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT " + qualified("dlock_schema_version()"))) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** @return what is wrong with the first table that differs, or null when all are dlock's */
    private String wrongShape(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                        + "WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            for (Map.Entry<String, Map<String, String>> table : TABLES.entrySet()) {
                query.setString(1, qualified(table.getKey()));
                Map<String, String> found = new LinkedHashMap<>();
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        found.put(rows.getString(1), rows.getString(2));
                    }
                }
                if (found.isEmpty()) {
                    continue; // no such table (yet)
                }
                List<String> problems = new ArrayList<>();
                table.getValue().forEach((column, type) -> {
                    String actual = found.get(column);
                    if (actual == null) {
                        problems.add("no column " + column + " (" + type + ")");
                    } else if (!actual.equals(type)) {
                        problems.add("column " + column + " is " + actual + ", not " + type);
                    }
                });
                if (!problems.isEmpty()) {
                    return table.getKey() + " has the wrong shape: " + String.join("; ", problems);
                }
            }
        }
        return null;
    }

    private static Map<String, String> columns(String... nameThenType) {
        Map<String, String> columns = new LinkedHashMap<>();
        for (int i = 0; i < nameThenType.length; i += 2) {
            columns.put(nameThenType[i], nameThenType[i + 1]);
        }
        return columns;
    }
}
