package dev.dlock.cli.doctor;

import dev.dlock.LockClient;
import dev.dlock.cli.common.Durations;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The checks of {@code dlock doctor} on PostgreSQL about dlock's sessions: the server timeouts that
 * cut its calls or connections, a pooler in front and its pooling, and a NOTIFY's way to a LISTEN
 * connection, timed.
 */
final class DoctorSessionChecks {

    /** As long as a client waits for its own test NOTIFY at start before it polls instead. */
    private static final Duration NOTIFY_BOUND = Duration.ofSeconds(2);
    private static final int NOTIFY_PROBES = 5;
    /** Tries to see two client connections on one server session: a busy pool may hand over another. */
    private static final int POOLING_PROBES = 3;

    private DoctorSessionChecks() {
    }

    static DoctorCheck timeouts(DoctorDatabase database) throws SQLException {
        String role = DoctorPostgresChecks.role(database);
        long commandMs = DoctorPostgresChecks.commandTimeoutMs();
        // the watchdog's renewal interval: a connection idle longer than this is idle between renewals
        long renewalMs = LockClient.DEFAULT_LEASE.toMillis() / 3;
        List<String> problems = new ArrayList<>();
        List<String> values = new ArrayList<>();
        String idleNote = "";
        for (Map.Entry<String, DoctorDatabase.Timeout> timeout : database.roleTimeouts().entrySet()) {
            String name = timeout.getKey();
            long ms = timeout.getValue().ms();
            String value = name + " " + timeout.getValue().shown();
            values.add(value);
            if (ms > 0 && ms < commandMs && (name.equals("statement_timeout") || name.equals("lock_timeout"))) {
                problems.add(value + ": the server cancels a call of dlock's that runs (or waits for its lock name's "
                        + "advisory lock, behind another call on that name) longer, where the client would wait its "
                        + "command timeout (" + Durations.format(Duration.ofMillis(commandMs)) + "): busy locks fail "
                        + "calls");
            } else if (ms > 0 && ms < renewalMs && name.equals("idle_session_timeout")) {
                problems.add(value + ": shorter than the watchdog's renewal interval (" + Durations.format(
                        Duration.ofMillis(renewalMs)) + " with the default lease), so the server closes nearly every "
                        + "connection dlock keeps between calls, and most calls open a new one");
            } else if (ms > 0 && name.equals("idle_session_timeout")) {
                idleNote = "; the server closes connections idle for " + timeout.getValue().shown() + ", which costs a "
                        + "call after such a pause a new connection (dlock runs a call on one the server closed again on "
                        + "a fresh one, and turns the timeout off for its LISTEN connection)";
            }
        }
        String seen = String.join(", ", values) + " (as role " + role + " sees them)";
        if (!problems.isEmpty()) {
            return DoctorCheck.warn("timeouts", database.label(), String.join("; ", problems) + "; exempt dlock's role: "
                    + "ALTER ROLE " + role + " SET <name> = 0. " + seen);
        }
        return DoctorCheck.ok("timeouts", database.label(), seen + ": none cuts a call of dlock's (each call is one "
                + "statement, never idle in a transaction)" + idleNote);
    }

    /**
     * A pooler in front, and how it pools: a session of PostgreSQL's own has the process id it
     * announced at the start; a pooler announces one of its own. In transaction pooling a server
     * session goes back to the pool after each transaction, so a second client connection's next
     * statement runs on the session the first one just left (PgBouncer hands out the one used last).
     */
    static DoctorCheck pooler(DoctorDatabase database) throws SQLException {
        if (!database.pooled()) {
            return DoctorCheck.ok("pooler", database.label(), "none: the session is PostgreSQL's own (its process id is "
                    + "the one announced at the start)");
        }
        boolean shared = false;
        try (DoctorDatabase other = database.another()) {
            for (int i = 0; i < POOLING_PROBES && !shared; i++) {
                shared = database.backendPid() == other.backendPid();
            }
        }
        String inFront = "a pooler in front (PgBouncer or the like: the session's process id is not the one announced)";
        if (!shared) {
            return DoctorCheck.ok("pooler", database.label(), inFront + ", in session pooling (two connections ran on "
                    + "sessions of their own): LISTEN and prepared statements work as without it");
        }
        String pooling = inFront + ", in transaction pooling (two connections ran one after the other on one session): "
                + "LISTEN does not work, so waiters poll (see notify), and dlock then prepares none of its statements "
                + "on the server";
        if ("0".equals(database.urlParameter("prepareThreshold"))) {
            return DoctorCheck.warn("pooler", database.label(), pooling + "; the URL has prepareThreshold=0");
        }
        return DoctorCheck.warn("pooler", database.label(), pooling + "; the application's own statements through "
                + "this pooler need prepareThreshold=0 in their URL, or they fail ('prepared statement \"S_1\" already "
                + "exists'), unless PgBouncer is 1.21 or newer with max_prepared_statements set");
    }

    /** A NOTIFY from one connection to another that LISTENs, timed from the NOTIFY's start to its arrival. */
    static DoctorCheck notify(DoctorDatabase database) throws SQLException {
        String channel = "dlock_doctor_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        long[] rtts = new long[NOTIFY_PROBES];
        try (DoctorDatabase listener = database.another()) {
            try {
                listener.execute("LISTEN " + channel);
            } catch (SQLException refused) {
                return DoctorCheck.warn("notify", database.label(), "LISTEN refused (" + DoctorPostgresChecks.firstLine(
                        refused.getMessage()) + "): waiters poll instead of being woken (every 100 ms, or "
                        + "PostgresStore.polling)");
            }
            PGConnection notifications = listener.connection().unwrap(PGConnection.class);
            for (int i = 0; i < NOTIFY_PROBES; i++) {
                String payload = "probe-" + i;
                long start = System.nanoTime();
                // the probe's commit does not wait for a synchronous standby: the standbys line is about that
                database.rows("SELECT set_config('synchronous_commit', 'local', true), pg_notify(?, ?)", channel, payload);
                if (!arrives(notifications, payload, start)) {
                    return DoctorCheck.warn("notify", database.label(), "a NOTIFY from another connection did not "
                            + "arrive within " + Durations.format(NOTIFY_BOUND) + " (a pooler in transaction pooling, "
                            + "or a proxy that drops it): clients find the same at start and poll instead (every "
                            + "100 ms, or PostgresStore.polling, --postgres-polling), so a handoff waits up to one poll "
                            + "interval, and each waiting acquisition asks once per interval");
                }
                rtts[i] = System.nanoTime() - start;
            }
            listener.execute("UNLISTEN *");
        }
        Arrays.sort(rtts);
        return DoctorCheck.ok("notify", database.label(), "a NOTIFY from another connection arrived after "
                + DoctorServerChecks.millis(rtts[NOTIFY_PROBES / 2]) + " (median of " + NOTIFY_PROBES + ", at most "
                + DoctorServerChecks.millis(rtts[NOTIFY_PROBES - 1]) + "): waiters are woken by the release's NOTIFY");
    }

    private static boolean arrives(PGConnection notifications, String payload, long start) throws SQLException {
        long deadline = start + NOTIFY_BOUND.toNanos();
        while (true) {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs < 1) {
                return false;
            }
            PGNotification[] arrived = notifications.getNotifications((int) leftMs);
            if (arrived != null && Arrays.stream(arrived).anyMatch(notification -> payload.equals(notification.getParameter()))) {
                return true;
            }
        }
    }
}
