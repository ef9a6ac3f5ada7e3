package dev.dlock.cli.doctor;

import dev.dlock.LockClient;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks of {@code dlock doctor} on PostgreSQL, as dlock's role at the URL sees the server:
 * version, recovery, what a restart and a failover keep, the server timeouts, the pooler in front
 * and NOTIFY ({@link DoctorSessionChecks}), the schema and its privileges and vacuum ({@link
 * DoctorSchemaChecks}), the clocks and the connections left. It only reads: it never creates dlock's
 * schema or writes a row.
 */
final class DoctorPostgresChecks {

    /** The oldest PostgreSQL dlock's schema runs on. */
    private static final int OLDEST_VERSION_NUM = 120000;
    /** Connections one client takes at most: its store threads' (8) and its LISTEN connection. */
    static final int CONNECTIONS_PER_CLIENT = 9;
    /** Clocks further apart than this show that NTP does not keep one of them. */
    private static final long SKEW_WARN_MS = 500;

    /** One check, which may fail with the server's refusal. */
    @FunctionalInterface
    interface Check {
        DoctorCheck run() throws SQLException;
    }

    private DoctorPostgresChecks() {
    }

    /**
     * @param url     the PostgreSQL URL, as the library takes it
     * @param schema  the schema of dlock's tables and functions
     * @param clients how many clients of dlock the database is to serve (for the connections check)
     */
    static List<DoctorCheck> all(String url, String schema, int clients) {
        DoctorDatabase database;
        try {
            database = DoctorDatabase.connect(url);
        } catch (SQLException e) {
            return List.of(DoctorCheck.fail("reachable", DoctorDatabase.labelOf(url), "cannot be reached or refuses "
                    + "the connection: " + firstLine(e.getMessage()) + ": no lock can be taken there"));
        }
        List<DoctorCheck> checks = new ArrayList<>();
        try (database) {
            checks.add(guarded("server", database, () -> server(database)));
            checks.add(guarded("recovery", database, () -> recovery(database)));
            checks.add(guarded("commit", database, () -> commit(database)));
            checks.add(guarded("standbys", database, () -> standbys(database)));
            checks.add(guarded("timeouts", database, () -> DoctorSessionChecks.timeouts(database)));
            checks.add(guarded("pooler", database, () -> DoctorSessionChecks.pooler(database)));
            checks.add(guarded("notify", database, () -> DoctorSessionChecks.notify(database)));
            DoctorSchemaChecks schemaChecks = new DoctorSchemaChecks(database, schema);
            checks.add(guarded("privileges", database, schemaChecks::privileges));
            checks.add(guarded("schema", database, schemaChecks::schema));
            checks.add(guarded("vacuum", database, schemaChecks::vacuum));
            checks.add(guarded("clock", database, () -> clock(database)));
            checks.add(guarded("connections", database, () -> connections(database, clients)));
        }
        return checks;
    }

    /** A check the server refuses or breaks off is a warning: it could not be made. */
    static DoctorCheck guarded(String name, DoctorDatabase database, Check check) {
        try {
            return check.run();
        } catch (SQLException e) {
            return DoctorCheck.warn(name, database.label(), "cannot check: " + firstLine(e.getMessage()));
        }
    }

    static DoctorCheck server(DoctorDatabase database) throws SQLException {
        int versionNum = Integer.parseInt(database.setting("server_version_num"));
        String version = "PostgreSQL " + database.setting("server_version").split(" ")[0];
        if (versionNum < OLDEST_VERSION_NUM) {
            return DoctorCheck.fail("server", database.label(), version + ": dlock needs PostgreSQL 12 or newer; "
                    + "tested on 15");
        }
        return DoctorCheck.ok("server", database.label(), version + " (dlock is tested on PostgreSQL 15)");
    }

    static DoctorCheck recovery(DoctorDatabase database) throws SQLException {
        if ("true".equals(database.text("SELECT pg_is_in_recovery()::text"))) {
            return DoctorCheck.fail("recovery", database.label(), "in recovery (a standby): it refuses dlock's writes "
                    + "(\"cannot execute ... in a read-only transaction\") and LISTEN; give dlock the primary");
        }
        if ("on".equals(database.setting("default_transaction_read_only"))) {
            return DoctorCheck.fail("recovery", database.label(), "default_transaction_read_only is on for role "
                    + role(database) + ": every call of dlock's is refused (\"read-only transaction\"); ALTER ROLE "
                    + role(database) + " SET default_transaction_read_only = off");
        }
        return DoctorCheck.ok("recovery", database.label(), "the primary, not in recovery: takes dlock's writes");
    }

    static DoctorCheck commit(DoctorDatabase database) throws SQLException {
        String synchronousCommit = database.setting("synchronous_commit");
        if ("off".equals(synchronousCommit)) {
            return DoctorCheck.warn("commit", database.label(), "synchronous_commit off for role " + role(database)
                    + ": a commit returns before it is on disk, so a crash of the server may forget the last grants "
                    + "the clients heard of, and another holder get in after the restart; ALTER ROLE "
                    + role(database) + " SET synchronous_commit = on");
        }
        return DoctorCheck.ok("commit", database.label(), "synchronous_commit " + synchronousCommit + " for role "
                + role(database) + ": a grant is a committed transaction, so a restart (or crash) keeps every lock the "
                + "clients heard of");
    }

    /** synchronous_standby_names and the standbys streaming, so what a failover keeps. */
    static DoctorCheck standbys(DoctorDatabase database) throws SQLException {
        String names = database.setting("synchronous_standby_names");
        String synchronousCommit = database.setting("synchronous_commit");
        // local and off: a commit never waits for a standby, whatever synchronous_standby_names says
        boolean commitsWait = !"off".equals(synchronousCommit) && !"local".equals(synchronousCommit);
        List<String> synchronous = new ArrayList<>();
        List<String> asynchronous = new ArrayList<>();
        int hidden = 0;
        for (List<String> row : database.rows("SELECT coalesce(nullif(application_name, ''), client_addr::text, "
                + "'local'), sync_state FROM pg_stat_replication ORDER BY 1")) {
            String state = row.get(1);
            if (state == null) {
                hidden++;
            } else if (state.equals("sync") || state.equals("quorum")) {
                synchronous.add(row.get(0) + " (" + state + ")");
            } else {
                asynchronous.add(row.get(0) + " (" + state + ")");
            }
        }
        int standbys = synchronous.size() + asynchronous.size() + hidden;
        String label = database.label();
        String asyncLoss = "the last grants may not have reached the standby; after its promotion another client can "
                + "get such a lock while its holder still believes it holds it (tokens still go up, so a fenced "
                + "resource refuses the older holder)";
        if (hidden > 0 && standbys == hidden) {
            return DoctorCheck.warn("standbys", label, standbys + " standby(s), whose state role " + role(database)
                    + " may not see (pg_stat_replication needs pg_read_all_stats): unknown whether a failover keeps "
                    + "every grant");
        }
        if (names == null || names.isBlank()) {
            if (standbys == 0) {
                return DoctorCheck.ok("standbys", label, "none: nothing to fail over to, so no grant can be lost to a "
                        + "failover (and none survives the loss of the server)");
            }
            return DoctorCheck.warn("standbys", label, standbys + " standby(s) replicating asynchronously ("
                    + String.join(", ", asynchronous) + "; synchronous_standby_names is empty): " + asyncLoss
                    + "; name the standby in synchronous_standby_names");
        }
        if (!commitsWait) {
            return DoctorCheck.warn("standbys", label, "synchronous_standby_names is '" + names + "', but "
                    + "synchronous_commit is " + synchronousCommit + " for role " + role(database) + ", so its commits "
                    + "do not wait for a standby: " + asyncLoss);
        }
        if (synchronous.isEmpty()) {
            return DoctorCheck.fail("standbys", label, "synchronous_standby_names is '" + names + "', but no such "
                    + "standby is connected (" + (asynchronous.isEmpty() ? "none streams" : String.join(", ", asynchronous))
                    + "): every commit waits for one, so every lock call hangs until its command timeout and fails");
        }
        return DoctorCheck.ok("standbys", label, "synchronous replication to " + String.join(", ", synchronous)
                + " (synchronous_standby_names '" + names + "', synchronous_commit " + synchronousCommit + "): a commit "
                + "returns only once the standby has it, so every grant a client heard of is on the standby when it "
                + "is promoted" + (asynchronous.isEmpty() ? "" : "; not on the asynchronous " + String.join(", ",
                asynchronous) + ": promoting one of those may lose the last grants"));
    }

    /** This host's clock against the server's, from the reading with the shortest round trip of three. */
    static DoctorCheck clock(DoctorDatabase database) throws SQLException {
        long bestRoundTrip = Long.MAX_VALUE;
        long offsetMs = 0;
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            long before = System.currentTimeMillis();
            double serverMs = Double.parseDouble(database.text("SELECT extract(epoch FROM clock_timestamp()) * 1000"));
            long after = System.currentTimeMillis();
            long roundTrip = System.nanoTime() - start;
            if (roundTrip < bestRoundTrip) {
                bestRoundTrip = roundTrip;
                offsetMs = Math.round(serverMs - (before + after) / 2.0);
            }
        }
        String measured = offsetMs == 0 ? "this host's clock and the server's agree to the millisecond"
                : "this host's clock is " + Math.abs(offsetMs) + " ms " + (offsetMs > 0 ? "behind" : "ahead of")
                + " the server's";
        if (Math.abs(offsetMs) > SKEW_WARN_MS) {
            return DoctorCheck.warn("clock", database.label(), measured + ": leases are judged on the server's clock "
                    + "alone, so the locks do not depend on this host's; but NTP does not keep one of the two, and a "
                    + "failover needs the servers' clocks to agree (leases then run on the promoted one's); run NTP");
        }
        return DoctorCheck.ok("clock", database.label(), measured + " (leases are judged on the server's clock alone)");
    }

    /** Room under max_connections (and the role's and database's limits) for the clients to serve. */
    static DoctorCheck connections(DoctorDatabase database, int clients) throws SQLException {
        List<String> row = database.rows("SELECT current_setting('max_connections')::int, "
                + "current_setting('superuser_reserved_connections')::int "
                + "+ coalesce(current_setting('reserved_connections', true)::int, 0), "
                + "(SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user), "
                + "(SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user), "
                + "(SELECT datconnlimit FROM pg_database WHERE datname = current_database()), "
                + "count(*), count(*) FILTER (WHERE usename = current_user), "
                + "count(*) FILTER (WHERE datname = current_database()) "
                + "FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()").get(0);
        int max = Integer.parseInt(row.get(0));
        int reserved = Integer.parseInt(row.get(1));
        boolean superuser = "true".equals(row.get(2));
        int roleLimit = Integer.parseInt(row.get(3));
        int databaseLimit = Integer.parseInt(row.get(4));
        int inUse = Integer.parseInt(row.get(5));
        List<String> limits = new ArrayList<>();
        limits.add("max_connections " + max + (superuser ? "" : ", " + reserved + " reserved") + ", " + inUse
                + " in use by others");
        int free = max - inUse - (superuser ? 0 : reserved);
        // the connection limits of a role and a database do not apply to superusers
        if (!superuser && roleLimit >= 0) {
            free = Math.min(free, roleLimit - Integer.parseInt(row.get(6)));
            limits.add("role " + role(database) + " limited to " + roleLimit);
        }
        if (!superuser && databaseLimit >= 0) {
            free = Math.min(free, databaseLimit - Integer.parseInt(row.get(7)));
            limits.add("the database limited to " + databaseLimit);
        }
        free = Math.max(0, free);
        int needed = clients * CONNECTIONS_PER_CLIENT;
        String measured = "room for " + free + " more connections (" + String.join(", ", limits) + "); " + clients
                + " client(s) of dlock take up to " + needed + " (" + CONNECTIONS_PER_CLIENT + " each: 8 for calls, 1 for "
                + "LISTEN; from the application's pool when given its DataSource)"
                + (database.pooled() ? "; behind the pooler these are its connections to the server, and how many "
                + "clients it takes (max_client_conn) is not seen from here" : "");
        if (free < needed) {
            return DoctorCheck.warn("connections", database.label(), measured + ": connections beyond the room are "
                    + "refused (\"too many connections\"), and calls that need one fail; raise the limit, or put a "
                    + "pooler in front");
        }
        return DoctorCheck.ok("connections", database.label(), measured);
    }

    static String role(DoctorDatabase database) throws SQLException {
        return database.text("SELECT current_user");
    }

    static String firstLine(String message) {
        String text = String.valueOf(message).strip();
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline).strip();
    }

    /** The client's command timeout: a server timeout below it cuts calls the client would still wait for. */
    static long commandTimeoutMs() {
        return LockClient.DEFAULT_COMMAND_TIMEOUT.toMillis();
    }
}
