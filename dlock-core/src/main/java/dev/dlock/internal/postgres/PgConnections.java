package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import javax.sql.DataSource;

/**
 * Where a PostgreSQL store gets its connections, and the threads that use them: JDBC blocks, so
 * every call runs on one of a few daemon threads, each with a connection borrowed for the call. The
 * connections come from the application's {@link DataSource} (its pool), or, for a JDBC URL, from a
 * small pool of this client's own. A connection that failed is not given back.
 */
final class PgConnections implements AutoCloseable {

    /** One call with a borrowed connection. */
    @FunctionalInterface
    interface Call<T> {
        T run(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final String url;
    private final Properties properties;
    private final String address;
    private final int commandTimeoutMs;
    private final ExecutorService executor;
    private final Deque<Connection> idle = new ArrayDeque<>();
    private volatile boolean closed;

    private PgConnections(DataSource dataSource, String url, Properties properties, String address,
                          long commandTimeoutMs, int threads) {
        this.dataSource = dataSource;
        this.url = url;
        this.properties = properties;
        this.address = address;
        this.commandTimeoutMs = (int) Math.min(Integer.MAX_VALUE, commandTimeoutMs);
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "dlock-postgres-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Connections from the application's pool. */
    static PgConnections of(DataSource dataSource, long commandTimeoutMs, int threads) {
        return new PgConnections(dataSource, null, null, "postgresql (application DataSource)", commandTimeoutMs, threads);
    }

    /** Connections of this client's own to a {@code jdbc:postgresql:} URL, at most {@code threads} open. */
    static PgConnections of(String url, long commandTimeoutMs, int threads) {
        Properties properties = new Properties();
        // a server that does not answer must not hold a caller longer than the command timeout
        long seconds = Math.max(1, (commandTimeoutMs + 999) / 1000);
        if (!url.contains("connectTimeout=")) {
            properties.setProperty("connectTimeout", Long.toString(seconds));
        }
        if (!url.contains("ApplicationName=")) {
            properties.setProperty("ApplicationName", "dlock");
        }
        return new PgConnections(null, url, properties, PgUrls.withoutCredentials(url), commandTimeoutMs, threads);
    }

    /** Where the database is, without credentials, for messages. */
    String address() {
        return address;
    }

    /** Runs the call on a store thread with a connection; the future fails with the call's {@link SQLException}. */
    <T> CompletableFuture<T> submit(Call<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(run(call));
                } catch (SQLException | RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new SQLException("the client is closed", "08003", e));
        }
        return result;
    }

    /** Runs the call on the caller's thread. */
    <T> T run(Call<T> call) throws SQLException {
        return run(call, commandTimeoutMs);
    }

    /**
     * Runs the call on the caller's thread, with a reply awaited up to {@code timeoutMs}. A call on
     * a connection that the server had closed at a shutdown (57P01: nothing of it was committed) is
     * run once more on a fresh one, so that the first call after a restart does not fail for a
     * connection opened before it.
     */
    <T> T run(Call<T> call, int timeoutMs) throws SQLException {
        try {
            return runOnce(call, timeoutMs);
        } catch (SQLException e) {
            if (!"57P01".equals(e.getSQLState())) {
                throw e;
            }
            return runOnce(call, timeoutMs);
        }
    }

    private <T> T runOnce(Call<T> call, int timeoutMs) throws SQLException {
        Connection connection = borrow();
        boolean healthy = false;
        try {
            connection.setNetworkTimeout(Runnable::run, timeoutMs);
            T value = call.run(connection);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            healthy = true;
            return value;
        } catch (SQLException e) {
            healthy = !isConnectionFailure(e) && rollBack(connection);
            if (!healthy) {
                // the server went away: the idle connections opened before went with it
                dropIdle();
            }
            throw e;
        } finally {
            giveBack(connection, healthy);
        }
    }

    /** A connection of its own for the caller to keep (the LISTEN connection); the caller closes it. */
    Connection open() throws SQLException {
        return dataSource != null ? dataSource.getConnection() : DriverManager.getConnection(url, properties);
    }

    private Connection borrow() throws SQLException {
        if (dataSource != null) {
            return dataSource.getConnection();
        }
        synchronized (idle) {
            Connection connection = idle.pollFirst();
            if (connection != null) {
                return connection;
            }
        }
        return DriverManager.getConnection(url, properties);
    }

    private void giveBack(Connection connection, boolean healthy) {
        if (dataSource != null || !healthy || closed) {
            closeQuietly(connection);
            return;
        }
        synchronized (idle) {
            idle.addFirst(connection);
        }
    }

    private static boolean rollBack(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    static boolean isConnectionFailure(SQLException e) {
        String state = e.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P");
    }

    /**
     * How a server call failed, in the terms every store uses: not run (unreachable, refused,
     * starting, read-only), timed out or broken off mid-way (outcome unknown), or an error reply.
     */
    static NodeError.Kind kind(Throwable failure) {
        if (!(failure instanceof SQLException e)) {
            return NodeError.Kind.OTHER;
        }
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return switch (state) {
            case "57014" -> NodeError.Kind.TIMEOUT;                      // query_canceled: the statement timed out
            case "08001", "08004", "57P03", "25006", "08003" -> NodeError.Kind.UNREACHABLE; // not run at all
            default -> state.startsWith("08") || state.startsWith("57P") || state.isEmpty()
                    ? NodeError.Kind.OTHER : NodeError.Kind.ERROR_REPLY;
        };
    }

    /**
     * The failure as every store reports it: what was done, on which lock, what is known about the
     * outcome, the database's message.
     */
    LockBackendException failed(String operation, String lockName, Throwable failure) {
        Throwable cause = PgUrls.unwrap(failure);
        NodeError.Kind kind = kind(cause);
        String message = cause.getMessage() == null ? cause.toString() : cause.getMessage().strip();
        NodeError error = new NodeError(address, kind, message);
        String subject = lockName == null ? "" : " for lock '" + lockName + "'";
        String text = switch (kind) {
            case TIMEOUT, OTHER -> operation + " outcome unknown" + subject + " on " + address + ": " + message;
            case UNREACHABLE -> operation + " failed" + subject + ": PostgreSQL at " + address + " unreachable: " + message;
            default -> operation + " failed" + subject + " on " + address + ": " + message;
        };
        return new LockBackendException(text, cause, lockName, List.of(error));
    }

    private void dropIdle() {
        synchronized (idle) {
            idle.forEach(PgConnections::closeQuietly);
            idle.clear();
        }
    }

    /**
     * The result as it is; a failure as every store reports it ({@link #failed}): what was done, on
     * which lock, what is known about the outcome.
     */
    <T> BiFunction<T, Throwable, T> failing(String operation, String lockName) {
        return (result, error) -> {
            if (error != null) {
                throw failed(operation, lockName, error);
            }
            return result;
        };
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdown();
        dropIdle();
    }

    static void closeQuietly(AutoCloseable closeable) {
        try {
            if (closeable != null) {
                closeable.close();
            }
        } catch (Exception ignored) {
            // closing a connection that failed: nothing left to do
        }
    }
}
