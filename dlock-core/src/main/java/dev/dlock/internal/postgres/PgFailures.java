package dev.dlock.internal.postgres;

import dev.dlock.NodeError;
import java.sql.SQLException;
import java.util.Set;

/**
 * What a PostgreSQL error means for dlock, by its SQLSTATE: the one classification the store, its
 * start and (through {@link NodeError.Cause}) the acquire loop, the CLI and the starter go by. A
 * refusal no retry mends (credentials, a missing database or privilege, objects of another shape)
 * is {@link NodeError.Cause#REFUSED}: a clear error at once, never an outage waited out.
 */
final class PgFailures {

    /**
     * Refusals by SQLSTATE: 3D000 no such database, 42501 insufficient privilege, 3F000 no such
     * schema, 42P01 / 42883 / 42703 / 42804 a table, function, column or type that is not dlock's,
     * 08004 the driver cannot authenticate as the server asks (no password given, SSL refused).
     * Class 28 (authorization: a wrong password, no pg_hba.conf entry) is refused as a whole.
     */
    private static final Set<String> REFUSALS = Set.of("3D000", "42501", "3F000", "42P01", "42883", "42703", "42804",
            "08004");

    /**
     * Not run, and worth another attempt: 08001 / 08003 no connection, 57P03 the server is starting
     * or stopping, 53300 too many connections, 25006 read-only (a failover under way), 40001 / 40P01
     * a serialization failure or deadlock (rolled back), 55P03 a lock not available.
     */
    private static final Set<String> NOT_RUN = Set.of("08001", "08003", "57P03", "53300", "25006", "40001", "40P01",
            "55P03");

    /**
     * The server ended the session before it read the statement, or stopped the statement's
     * transaction: 57P05 an idle session timed out (a DBA's idle_session_timeout; only an idle
     * session times out), 57P01 a shutdown or pg_terminate_backend, 57P04 the database was
     * dropped. Sent as a FATAL in place of the statement's reply, it means nothing was committed;
     * a crash (57P02) may come after a commit, so it is not here.
     */
    private static final Set<String> SESSION_ENDED = Set.of("57P05", "57P01", "57P04");

    private PgFailures() {
    }

    /**
     * How a server call failed, in the terms every store uses: refused for good, not run
     * (unreachable, starting, read-only), timed out or broken off mid-way (outcome unknown), or an
     * error reply.
     */
    static NodeError.Cause kind(Throwable failure) {
        if (!(failure instanceof SQLException e)) {
            return NodeError.Cause.OTHER;
        }
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("57014")) {
            return NodeError.Cause.TIMEOUT; // query_canceled: the statement timed out
        }
        if (isRefusal(state)) {
            return NodeError.Cause.REFUSED;
        }
        if (NOT_RUN.contains(state) || SESSION_ENDED.contains(state)) {
            return NodeError.Cause.UNREACHABLE;
        }
        return state.startsWith("08") || state.startsWith("57P") || state.isEmpty()
                ? NodeError.Cause.OTHER : NodeError.Cause.ERROR_REPLY;
    }

    static boolean isRefusal(String sqlState) {
        return sqlState != null && (sqlState.startsWith("28") || REFUSALS.contains(sqlState));
    }

    /** The server ended the session before the statement ran: a fresh connection may run it. */
    static boolean sessionEnded(SQLException e) {
        return SESSION_ENDED.contains(e.getSQLState());
    }

    /** The connection is no longer usable. */
    static boolean isConnectionFailure(SQLException e) {
        String state = e.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P");
    }
}
