package dev.dlock.cli.demo;

import dev.dlock.LockBackendException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The stock and orders in two tables of the demo's own, in the current schema of the URL's
 * database: {@code dlock_demo_stock (sale, units)} and {@code dlock_demo_order (sale, buyer)}. Each
 * buyer thread reads and writes on a connection of its own in autocommit: every statement its own
 * transaction, so two buyers who read the same units both write back the same count, as on Redis.
 */
final class PostgresStockroom implements Stockroom {

    static final String STOCK_TABLE = "dlock_demo_stock";
    static final String ORDER_TABLE = "dlock_demo_order";

    private final PostgresForDemo database;
    private final ThreadLocal<Connection> connections = new ThreadLocal<>();
    private final Queue<Connection> opened = new ConcurrentLinkedQueue<>();

    PostgresStockroom(PostgresForDemo database) {
        this.database = database;
    }

    /**
     * Creates the demo's tables when missing, and deletes sales kept over 10 minutes ago (as the
     * Redis demo's keys expire).
     */
    static void prepare(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (Statement sql = connection.createStatement()) {
            // two demos starting at once: CREATE TABLE IF NOT EXISTS alone can still collide
            sql.execute("SELECT pg_advisory_xact_lock(1684826987, hashtext('" + STOCK_TABLE + "'))");
            sql.execute("CREATE TABLE IF NOT EXISTS " + STOCK_TABLE + " (sale text PRIMARY KEY, units integer NOT NULL, "
                    + "stocked timestamptz NOT NULL DEFAULT now())");
            sql.execute("CREATE TABLE IF NOT EXISTS " + ORDER_TABLE + " (sale text NOT NULL, buyer text NOT NULL, "
                    + "ordered timestamptz NOT NULL DEFAULT now())");
            sql.execute("DELETE FROM " + ORDER_TABLE + " WHERE sale IN (SELECT sale FROM " + STOCK_TABLE
                    + " WHERE stocked < now() - interval '10 minutes')");
            sql.execute("DELETE FROM " + STOCK_TABLE + " WHERE stocked < now() - interval '10 minutes'");
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    @Override
    public void stockUp(String sale, int units) {
        update("DELETE FROM " + ORDER_TABLE + " WHERE sale = ?", sale);
        update("INSERT INTO " + STOCK_TABLE + " (sale, units) VALUES (?, ?) "
                + "ON CONFLICT (sale) DO UPDATE SET units = excluded.units, stocked = now()", sale, units);
    }

    @Override
    public int stock(String sale) {
        return (int) query("SELECT coalesce((SELECT units FROM " + STOCK_TABLE + " WHERE sale = ?), 0)", sale);
    }

    @Override
    public void writeStock(String sale, int units) {
        update("UPDATE " + STOCK_TABLE + " SET units = ? WHERE sale = ?", units, sale);
    }

    @Override
    public void recordOrder(String sale, String buyer) {
        update("INSERT INTO " + ORDER_TABLE + " (sale, buyer) VALUES (?, ?)", sale, buyer);
    }

    @Override
    public long orders(String sale) {
        return query("SELECT count(*) FROM " + ORDER_TABLE + " WHERE sale = ?", sale);
    }

    @Override
    public String keep(String sale) {
        return "kept the rows of sale '" + sale + "' in " + STOCK_TABLE + " and " + ORDER_TABLE
                + " (deleted by a demo run 10 minutes later)";
    }

    @Override
    public void delete(String sale) {
        update("DELETE FROM " + ORDER_TABLE + " WHERE sale = ?", sale);
        update("DELETE FROM " + STOCK_TABLE + " WHERE sale = ?", sale);
    }

    @Override
    public void close() {
        for (Connection connection = opened.poll(); connection != null; connection = opened.poll()) {
            try {
                connection.close();
            } catch (SQLException e) {
                // closing a broken connection: nothing to give back
            }
        }
    }

    private void update(String sql, Object... parameters) {
        try (PreparedStatement statement = prepared(sql, parameters)) {
            statement.executeUpdate();
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private long query(String sql, Object... parameters) {
        try (PreparedStatement statement = prepared(sql, parameters); ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getLong(1);
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private PreparedStatement prepared(String sql, Object... parameters) throws SQLException {
        PreparedStatement statement = connection().prepareStatement(sql);
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
        return statement;
    }

    /** The calling thread's connection, opened on first use. */
    private Connection connection() throws SQLException {
        Connection connection = connections.get();
        if (connection == null) {
            connection = database.connect();
            opened.add(connection);
            connections.set(connection);
        }
        return connection;
    }

    private LockBackendException failed(SQLException e) {
        return new LockBackendException("the demo's stock and orders in PostgreSQL at " + database.address() + ": "
                + e.getMessage(), e);
    }

    /** A JDBC connection to {@code jdbcUrl} as the demo opens them. */
    static Connection open(String jdbcUrl) throws SQLException {
        Properties properties = new Properties();
        if (!jdbcUrl.contains("connectTimeout=")) {
            properties.setProperty("connectTimeout", "5");
        }
        if (!jdbcUrl.contains("ApplicationName=")) {
            properties.setProperty("ApplicationName", "dlock-demo");
        }
        return DriverManager.getConnection(jdbcUrl, properties);
    }
}
