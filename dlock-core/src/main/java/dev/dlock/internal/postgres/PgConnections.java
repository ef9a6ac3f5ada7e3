package dev.dlock.internal.postgres;

import dev.dlock.LockBackendException;
import dev.dlock.LockObserver;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

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
    /** A connection given back, and since when it is idle. */
    private record Idle(Connection connection, long sinceNanos) {
    }

    /** An idle connection older than this is checked before it is used again. */
    static final long CHECK_IDLE_AFTER_MS = 500;

    private final Deque<Idle> idle = new ArrayDeque<>();
    private volatile boolean closed;
    /** Statements are sent unnamed, never prepared on the server (PgBouncer in transaction pooling). */
    private volatile boolean unprepared;
    private volatile LockObserver observer;

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
        // connectTimeout bounds the TCP connect alone: a server that accepts but does not answer (paused,
        // overloaded) held the startup and authentication exchange, and so the caller, without bound
        if (!url.contains("loginTimeout=")) {
            properties.setProperty("loginTimeout", Long.toString(seconds));
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

    /** Reports each submitted call to the observer (guarded, never throws); null: none. */
    void observedBy(LockObserver observer) {
        this.observer = observer;
    }

    /**
     * Runs the call on a store thread with a connection; the future fails with the call's {@link
     * SQLException}. The call is reported to the observer as {@code name} (the SQL function's name
     * without {@code dlock_}), from its submission to its outcome.
     */
    <T> CompletableFuture<T> submit(String name, Call<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        LockObserver observing = observer;
        long startNanos = observing == null ? 0 : System.nanoTime();
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
        if (observing != null) {
            result.whenComplete((value, error) -> observing.scriptCall(name, System.nanoTime() - startNanos, error == null));
        }
        return result;
    }

    /** Runs the call on the caller's thread. */
    <T> T run(Call<T> call) throws SQLException {
        return run(call, commandTimeoutMs);
    }

    /**
     * Runs the call on the caller's thread, with a reply awaited up to {@code timeoutMs}. A call
     * whose connection the server had ended before reading it ({@link PgFailures#sessionEnded}: a
     * DBA's idle_session_timeout, a restart, pg_terminate_backend; nothing of it ran) is run once
     * more on a fresh connection, so that no call fails for a connection opened before.
     */
    <T> T run(Call<T> call, int timeoutMs) throws SQLException {
        try {
            return runOnce(call, timeoutMs, false);
        } catch (SQLException e) {
            if (!PgFailures.sessionEnded(e)) {
                throw e;
            }
            return runOnce(call, timeoutMs, true);
        }
    }

    /**
     * From now on, statements are never prepared on the server ({@code prepareThreshold=0} for
     * dlock's statements, whatever the URL or the application's pool says): behind PgBouncer in
     * transaction pooling each transaction may run on another server connection, where a statement
     * prepared on the last one is missing ("prepared statement S_1 does not exist") or another
     * client's is there ("S_1 already exists").
     */
    void prepareNothing() {
        unprepared = true;
    }

    private <T> T runOnce(Call<T> call, int timeoutMs, boolean fresh) throws SQLException {
        Connection connection = fresh ? connect() : borrow();
        boolean healthy = false;
        int poolsThreshold = -1;
        try {
            if (unprepared && connection.isWrapperFor(PGConnection.class)) {
                PGConnection pg = connection.unwrap(PGConnection.class);
                poolsThreshold = pg.getPrepareThreshold();
                pg.setPrepareThreshold(0);
            }
            connection.setNetworkTimeout(Runnable::run, timeoutMs);
            T value = call.run(connection);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            healthy = true;
            return value;
        } catch (SQLException e) {
            healthy = !PgFailures.isConnectionFailure(e) && rollBack(connection);
            if (!healthy) {
                // the server went away: the idle connections opened before went with it
                dropIdle();
            }
            throw e;
        } finally {
            if (poolsThreshold >= 0 && dataSource != null && healthy) {
                // the application's connection goes back to its pool as it came
                connection.unwrap(PGConnection.class).setPrepareThreshold(poolsThreshold);
            }
            giveBack(connection, healthy);
        }
    }

    /** A connection of its own for the caller to keep (the LISTEN connection); the caller closes it. */
    Connection open() throws SQLException {
        return connect();
    }

    /**
     * A connection of the pool's, or a new one. One that sat idle for {@value #CHECK_IDLE_AFTER_MS}
     * ms or more is checked first (one round trip, at most a second): a firewall's idle timer, a
     * pooler's or server's restart and a DBA's idle timeouts end idle connections, and a statement
     * sent on such a one would fail with its outcome unknown.
     */
    private Connection borrow() throws SQLException {
        if (dataSource != null) {
            return dataSource.getConnection();
        }
        while (true) {
            Idle kept;
            synchronized (idle) {
                kept = idle.pollFirst();
            }
            if (kept == null) {
                return connect();
            }
            if (System.nanoTime() - kept.sinceNanos() < TimeUnit.MILLISECONDS.toNanos(CHECK_IDLE_AFTER_MS)
                    || isAlive(kept.connection())) {
                return kept.connection();
            }
            closeQuietly(kept.connection());
        }
    }

    private Connection connect() throws SQLException {
        return dataSource != null ? dataSource.getConnection() : DriverManager.getConnection(url, properties);
    }

    private static boolean isAlive(Connection connection) {
        try {
            return connection.isValid(1);
        } catch (SQLException e) {
            return false;
        }
    }

    private void giveBack(Connection connection, boolean healthy) {
        if (dataSource != null || !healthy || closed) {
            closeQuietly(connection);
            return;
        }
        synchronized (idle) {
            idle.addFirst(new Idle(connection, System.nanoTime()));
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

    /**
     * The failure as every store reports it: what was done, on which lock, what is known about the
     * outcome, the database's message.
     */
    LockBackendException failed(String operation, String lockName, Throwable failure) {
        Throwable cause = PgUrls.unwrap(failure);
        NodeError.Cause kind = PgFailures.kind(cause);
        String message = cause.getMessage() == null ? cause.toString() : cause.getMessage().strip();
        NodeError error = new NodeError(address, kind, message);
        String subject = lockName == null ? "" : " for lock '" + lockName + "'";
        String text = switch (kind) {
            case TIMEOUT, OTHER -> operation + " outcome unknown" + subject + " on " + address + ": " + message;
            case UNREACHABLE -> operation + " failed" + subject + ": PostgreSQL at " + address + " unreachable: " + message;
            case REFUSED -> operation + " refused" + subject + " by PostgreSQL at " + address + ": " + message;
            default -> operation + " failed" + subject + " on " + address + ": " + message;
        };
        return new LockBackendException(text, cause, lockName, List.of(error));
    }

    private void dropIdle() {
        synchronized (idle) {
            idle.forEach(kept -> closeQuietly(kept.connection()));
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
