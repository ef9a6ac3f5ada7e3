package dev.dlock.internal.postgres;

import dev.dlock.internal.store.WakeUpSource;
import java.security.SecureRandom;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's wake-ups over LISTEN/NOTIFY: one dedicated connection per client LISTENs on one
 * notification channel of its own (not one per lock), and a row per subscribed dlock channel in
 * {@code dlock_listener} tells the functions that release, hand over or force a lock whom to
 * NOTIFY ({@code '<dlock channel>\t<message>'}, sent at their commit). A thread of its own waits for
 * notifications and passes each to the listener; when the connection breaks it connects again,
 * LISTENs, subscribes every channel anew (with the new backend's pid) and reports the reconnect,
 * since a message may have been missed meanwhile.
 *
 * <p>Where LISTEN does not work (PgBouncer in transaction pooling: the session that listened goes
 * back to the pool), the store polls instead: {@link #polling()} is true, subscriptions do nothing,
 * and waiters ask again at the poll interval.
 */
final class PgWakeUps implements WakeUpSource, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PgWakeUps.class);
    private static final int WAIT_MS = 500;
    private static final long PROBE_MS = 2000;

    private final PgConnections connections;
    private final PgSchema schema;
    private final String listenerName;
    private final Set<String> channels = ConcurrentHashMap.newKeySet();
    /**
     * Per channel, the last subscription change sent: each runs after the one before it has. They go
     * through the connection pool, whose connections run them at once and in any order; a leave's
     * delete that committed after the next waiter's subscribe would leave that waiter subscribed
     * here and unknown to the releases it waits for (a read waiter on PostgreSQL missed its wake-up
     * so, after two timed-out tryLocks of the same lock, and waited out the writer's lease).
     */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> lastChange = new ConcurrentHashMap<>();
    private volatile Listener listener;
    private volatile boolean polling;
    private volatile boolean closed;
    private volatile Connection connection;
    private volatile int backendPid;
    private Thread thread;

    private PgWakeUps(PgConnections connections, PgSchema schema, boolean polling) {
        this.connections = connections;
        this.schema = schema;
        this.polling = polling;
        byte[] random = new byte[9];
        new SecureRandom().nextBytes(random);
        StringBuilder name = new StringBuilder("dlock_");
        for (byte b : random) {
            name.append(String.format("%02x", b));
        }
        this.listenerName = name.toString();
    }

    /**
     * Starts listening; with {@code probe}, checks first that a NOTIFY sent from another connection
     * arrives (it does not behind PgBouncer in transaction pooling) and polls when it does not.
     */
    static PgWakeUps start(PgConnections connections, PgSchema schema, boolean notifications, boolean probe)
            throws SQLException {
        PgWakeUps wakeUps = new PgWakeUps(connections, schema, !notifications);
        if (!notifications) {
            return wakeUps;
        }
        wakeUps.connect();
        if (probe && !wakeUps.probe()) {
            LOG.warn("PostgreSQL at {}: a NOTIFY did not reach this client's LISTEN connection within {} ms (PgBouncer in "
                    + "transaction pooling?); waiters poll instead, and dlock's statements are not prepared on the server "
                    + "(as prepareThreshold=0); PostgresStore.polling(interval) says so at once and skips this test. The "
                    + "application's own statements through such a pooler need prepareThreshold=0 in their JDBC URL",
                    connections.address(), PROBE_MS);
            wakeUps.polling = true;
            wakeUps.closeListenConnection();
            return wakeUps;
        }
        wakeUps.thread = new Thread(wakeUps::receive, "dlock-postgres-listen");
        wakeUps.thread.setDaemon(true);
        wakeUps.thread.start();
        return wakeUps;
    }

    String listenerName() {
        return listenerName;
    }

    boolean polling() {
        return polling;
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        channels.add(channel);
        if (polling) {
            return CompletableFuture.completedFuture(null);
        }
        return afterEarlierChanges(channel, () -> connections.submit("subscribe", c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_subscribe(?, ?, ?)"))) {
                call.setString(1, channel);
                call.setString(2, listenerName);
                call.setInt(3, backendPid);
                call.execute();
            }
            return null;
        }));
    }

    @Override
    public void unsubscribe(String channel) {
        channels.remove(channel);
        if (polling || closed) {
            return;
        }
        afterEarlierChanges(channel, () -> connections.<Void>submit("unsubscribe", c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_unsubscribe(?, ?)"))) {
                call.setString(1, channel);
                call.setString(2, listenerName);
                call.execute();
            }
            return null;
        })).exceptionally(error -> null);
    }

    /** Sends {@code change} once the channel's earlier changes are done, whether they worked or not. */
    private CompletableFuture<Void> afterEarlierChanges(String channel, Supplier<CompletableFuture<Void>> change) {
        List<CompletableFuture<Void>> sent = new ArrayList<>(1);
        lastChange.compute(channel, (key, earlier) -> {
            CompletableFuture<Void> next = earlier == null ? change.get()
                    : earlier.handle((done, error) -> null).thenCompose(done -> change.get());
            sent.add(next);
            return next;
        });
        CompletableFuture<Void> mine = sent.get(0);
        mine.whenComplete((done, error) -> lastChange.remove(channel, mine));
        return mine;
    }

    private void connect() throws SQLException {
        Connection listen = connections.open();
        try {
            listen.setAutoCommit(true);
            try (Statement statement = listen.createStatement()) {
                // the one connection meant to sit idle: a DBA's idle_session_timeout (PostgreSQL 14+)
                // against leaked sessions would end it every few seconds, and wake-ups with it
                statement.execute("SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'idle_session_timeout'");
                statement.execute("LISTEN " + PgSchema.quote(listenerName));
                try (ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
                    rows.next();
                    backendPid = rows.getInt(1);
                }
            }
            PgPromptNotifications.apply(listen);
        } catch (SQLException e) {
            PgConnections.closeQuietly(listen);
            throw e;
        }
        connection = listen;
    }

    private boolean probe() throws SQLException {
        String token = "probe" + System.nanoTime();
        connections.run(c -> {
            try (PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                notify.setString(1, listenerName);
                notify.setString(2, token);
                notify.execute();
            }
            return null;
        });
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROBE_MS);
        PGConnection pg = connection.unwrap(PGConnection.class);
        while (System.nanoTime() < deadline) {
            PGNotification[] arrived = pg.getNotifications(100);
            if (arrived != null) {
                for (PGNotification notification : arrived) {
                    if (token.equals(notification.getParameter())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void receive() {
        long backoffMs = 50;
        while (!closed) {
            try {
                PGNotification[] arrived = connection.unwrap(PGConnection.class).getNotifications(WAIT_MS);
                backoffMs = 50;
                if (arrived != null) {
                    for (PGNotification notification : arrived) {
                        deliver(notification.getParameter());
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.debug("LISTEN connection to {} lost; connecting again", connections.address(), e);
                closeListenConnection();
                backoffMs = reconnect(backoffMs);
            }
        }
    }

    /** Connects, LISTENs and subscribes again until it works or the client closes; returns the next backoff. */
    private long reconnect(long backoffMs) {
        while (!closed) {
            try {
                TimeUnit.MILLISECONDS.sleep(backoffMs);
                connect();
                resubscribe();
                Listener current = listener;
                if (current != null) {
                    current.onReconnected();
                }
                return 50;
            } catch (SQLException | RuntimeException e) {
                closeListenConnection();
                backoffMs = Math.min(2000, backoffMs * 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return backoffMs;
            }
        }
        return backoffMs;
    }

    private void resubscribe() throws SQLException {
        String[] all = channels.toArray(String[]::new);
        connections.run(c -> {
            try (PreparedStatement call = c.prepareStatement("SELECT " + schema.qualified("dlock_subscribe(ch, ?, ?)")
                    + " FROM unnest(?::text[]) AS ch")) {
                Array array = c.createArrayOf("text", all);
                call.setString(1, listenerName);
                call.setInt(2, backendPid);
                call.setArray(3, array);
                call.execute();
            }
            return null;
        });
    }

    private void deliver(String payload) {
        int tab = payload.indexOf('\t');
        Listener current = listener;
        if (tab < 0 || current == null) {
            return;
        }
        String channel = payload.substring(0, tab);
        if (channels.contains(channel)) {
            current.onMessage(channel, payload.substring(tab + 1));
        }
    }

    private void closeListenConnection() {
        Connection current = connection;
        if (current != null) {
            PgPromptNotifications.undo(current);
            PgConnections.closeQuietly(current);
        }
    }

    @Override
    public void close() {
        closed = true;
        closeListenConnection();
        if (thread != null) {
            thread.interrupt();
        }
    }
}
