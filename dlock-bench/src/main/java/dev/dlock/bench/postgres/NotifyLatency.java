package dev.dlock.bench.postgres;

import dev.dlock.internal.postgres.PgPromptNotifications;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The floor under a handoff to another client on PostgreSQL, without dlock: the time from the start
 * of a {@code SELECT pg_notify(...)} (autocommit: the notification goes at its commit) on one
 * connection to its arrival at a thread blocked in {@code getNotifications} on another connection
 * that LISTENs, as dlock's listening thread is; beside it a plain round trip ({@code SELECT 1}).
 * Measured twice: with PgJDBC as it is, which waits 1 ms for more after each notification, and with
 * the listening connection tweaked as dlock tweaks its own ({@code PgPromptNotifications}).
 */
final class NotifyLatency {

    private static final int SAMPLES = 2_000;
    private static final int WARM_UP = 200;

    private NotifyLatency() {
    }

    static void measure(String jdbcUrl) throws Exception {
        measure(jdbcUrl, false);
        measure(jdbcUrl, true);
    }

    private static void measure(String jdbcUrl, boolean prompt) throws Exception {
        try (Connection listen = DriverManager.getConnection(jdbcUrl);
                Connection send = DriverManager.getConnection(jdbcUrl)) {
            try (Statement statement = listen.createStatement()) {
                statement.execute("LISTEN bench_notify_latency");
            }
            if (prompt && !PgPromptNotifications.apply(listen)) {
                System.out.println("NOTIFY with dlock's listening connection: not measured, PgJDBC's state not found");
                return;
            }
            SynchronousQueue<Long> arrivals = new SynchronousQueue<>();
            Thread receiver = new Thread(() -> receive(listen, arrivals), "notify-latency");
            receiver.setDaemon(true);
            receiver.start();
            long[] notify = new long[SAMPLES];
            long[] roundTrip = new long[SAMPLES];
            try (PreparedStatement call = send.prepareStatement("SELECT pg_notify('bench_notify_latency', 'x')");
                    PreparedStatement ping = send.prepareStatement("SELECT 1")) {
                for (int i = 0; i < WARM_UP + SAMPLES; i++) {
                    long start = System.nanoTime();
                    call.executeQuery().close();
                    Long arrived = arrivals.poll(5, TimeUnit.SECONDS);
                    long pinged = System.nanoTime();
                    try (ResultSet one = ping.executeQuery()) {
                        one.next();
                    }
                    if (i >= WARM_UP && arrived != null) {
                        notify[i - WARM_UP] = arrived - start;
                        roundTrip[i - WARM_UP] = System.nanoTime() - pinged;
                    }
                }
            } finally {
                receiver.interrupt();
            }
            Arrays.sort(notify);
            Arrays.sort(roundTrip);
            System.out.printf(Locale.ROOT, "NOTIFY to a LISTEN thread on another connection (%s): p50 %.0f µs, p90 %.0f µs;"
                            + " a round trip (SELECT 1): p50 %.0f µs%n", prompt ? "tweaked as dlock's" : "PgJDBC as it is", notify[SAMPLES / 2] / 1e3, notify[SAMPLES * 9 / 10] / 1e3,
                    roundTrip[SAMPLES / 2] / 1e3);
        }
    }

    private static void receive(Connection listen, SynchronousQueue<Long> arrivals) {
        try {
            PGConnection pg = listen.unwrap(PGConnection.class);
            while (!Thread.currentThread().isInterrupted()) {
                PGNotification[] arrived = pg.getNotifications(500);
                long at = System.nanoTime();
                if (arrived != null && arrived.length > 0) {
                    arrivals.put(at);
                }
            }
        } catch (SQLException | InterruptedException e) {
            // the measurement is over
        }
    }
}
