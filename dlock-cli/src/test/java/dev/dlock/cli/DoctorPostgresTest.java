package dev.dlock.cli;

import static dev.dlock.cli.DoctorTest.doctor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import dev.dlock.cli.DoctorTest.Run;
import dev.dlock.testing.PgBouncer;
import dev.dlock.testing.PostgresServer;
import dev.dlock.testing.SkewedClockLibrary;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dlock doctor --postgres} against one real PostgreSQL server, set up wrong between the
 * tests the way each WARN or FAIL line is about (ALTER SYSTEM, ALTER ROLE ... SET, a role without
 * privileges, a damaged schema in a database of its own), and put back after each; a standby and a
 * PgBouncer where the line is about them.
 */
class DoctorPostgresTest {

    private static final List<String> ALL_CHECKS = List.of("server", "recovery", "commit", "standbys", "timeouts",
            "pooler", "notify", "privileges", "schema", "vacuum", "clock", "connections");

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
        // dlock's schema as its first client creates it
        LockClient.builder().store(PostgresStore.url(postgres.jdbcUrl())).build().close();
        postgres.sql("CREATE DATABASE fresh");
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @AfterEach
    void putBack() {
        // the server's settings first: a synchronous standby named but gone would hold every commit below
        postgres.sql("ALTER SYSTEM RESET ALL");
        postgres.sql("SELECT pg_reload_conf()");
        await().atMost(Duration.ofSeconds(30)).until(() -> postgres.sql("SHOW synchronous_standby_names").isEmpty()
                && postgres.sql("SHOW autovacuum").equals("on"));
        postgres.sql("ALTER ROLE dlock RESET ALL");
        postgres.sql("ALTER DATABASE fresh RESET ALL");
        postgres.sql("ALTER TABLE dlock_hold RESET (autovacuum_enabled)");
    }

    private static Run doctorPostgres(String url, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--postgres", url));
        args.addAll(List.of(more));
        return doctor(args.toArray(String[]::new));
    }

    /** ALTER SYSTEM SET, then waits until a new session sees the value. */
    private static void alterSystem(String setting, String value) {
        postgres.sql("ALTER SYSTEM SET " + setting + " = '" + value + "'");
        postgres.sql("SELECT pg_reload_conf()");
        await().atMost(Duration.ofSeconds(30)).until(() -> postgres.sql("SHOW " + setting).equals(value));
    }

    private static String url(String database, String user, String password) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.port() + "/" + database + "?user=" + user + "&password=" + password;
    }

    @Test
    void aPrimaryOfItsOwnWithDlocksSchemaIsAllOk() {
        Run run = doctorPostgres(postgres.jdbcUrl());
        for (String check : ALL_CHECKS) {
            assertThat(run.line(check)).as(run.toString()).startsWith("OK ");
        }
        assertThat(run.exit()).as(run.toString()).isZero();
        String node = "postgresql://127.0.0.1:" + postgres.port() + "/dlock";
        assertThat(run.line("server")).as(run.toString()).contains(node, "PostgreSQL 1");
        assertThat(run.out()).doesNotContain(postgres.password());
        assertThat(run.line("standbys")).contains("none: nothing to fail over to");
        assertThat(run.line("pooler")).contains("none");
        assertThat(run.line("notify")).contains("arrived after");
        assertThat(run.line("schema")).contains("version 4", "4 tables");
    }

    @Test
    void theJsonHasEveryCheckAndTheExitCode() throws Exception {
        Run run = doctorPostgres(postgres.jdbcUrl(), "--json");
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.get("exit").asInt()).isZero().isEqualTo(run.exit());
        assertThat(json.get("checks")).hasSize(ALL_CHECKS.size()).anySatisfy(check -> {
            assertThat(check.get("check").asText()).isEqualTo("notify");
            assertThat(check.get("status").asText()).isEqualTo("OK");
            assertThat(check.get("node").asText()).isEqualTo("postgresql://127.0.0.1:" + postgres.port() + "/dlock");
        });
    }

    @Test
    void aLibpqUrlIsTakenAndItsPasswordNotShown() {
        Run run = doctorPostgres("postgresql://dlock:" + postgres.password() + "@127.0.0.1:" + postgres.port() + "/dlock");
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.line("server")).contains("postgresql://127.0.0.1:" + postgres.port() + "/dlock ");
        assertThat(run.out()).doesNotContain(postgres.password());
    }

    @Test
    void aWrongPasswordFailsReachable() {
        Run run = doctorPostgres(url("dlock", "dlock", "wrong"));
        assertThat(run.line("reachable")).as(run.toString()).startsWith("FAIL ").contains("password authentication failed");
        assertThat(run.exit()).isEqualTo(2);
    }

    @Test
    void onAFreshDatabaseTheDoctorCreatesNothing() {
        Run run = doctorPostgres(url("fresh", "dlock", postgres.password()));
        assertThat(run.line("schema")).as(run.toString()).startsWith("OK ").contains("not in schema \"public\" yet");
        assertThat(run.line("privileges")).as(run.toString()).startsWith("OK ").contains("may create");
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(psql("fresh", "SELECT count(*) FROM pg_class WHERE relname LIKE 'dlock%'")).isEqualTo("0");
    }

    @Test
    void theSchemaNamedByPostgresSchemaIsTheOneChecked() {
        Run missing = doctorPostgres(url("fresh", "dlock", postgres.password()), "--postgres-schema", "locks");
        assertThat(missing.line("schema")).as(missing.toString()).startsWith("OK ").contains("not in schema \"locks\" yet");
        assertThat(missing.line("privileges")).as(missing.toString()).startsWith("OK ")
                .contains("CREATE on the database (schema \"locks\" is not there)");

        String other = url("fresh", "dlock", postgres.password());
        LockClient.builder().store(PostgresStore.url(other).schema("locks")).build().close();
        try {
            Run present = doctorPostgres(other, "--postgres-schema", "locks");
            assertThat(present.line("schema")).as(present.toString()).startsWith("OK ")
                    .contains("version 4 in schema \"locks\"");
            assertThat(present.exit()).as(present.toString()).isZero();
        } finally {
            psql("fresh", "DROP SCHEMA locks CASCADE");
        }
    }

    @Test
    void aStandbyFailsRecoveryAndWhatAFailoverKeepsFollowsTheReplication() {
        try (PostgresServer standby = postgres.startReplica(false)) {
            Run onStandby = doctorPostgres(standby.jdbcUrl());
            assertThat(onStandby.line("recovery")).as(onStandby.toString()).startsWith("FAIL ").contains("in recovery");
            assertThat(onStandby.exit()).isEqualTo(2);

            Run asynchronous = doctorPostgres(postgres.jdbcUrl());
            assertThat(asynchronous.line("standbys")).as(asynchronous.toString()).startsWith("WARN ")
                    .contains("asynchronously", "the last grants may not have reached the standby");
            assertThat(asynchronous.exit()).isEqualTo(1);

            postgres.sql("CREATE ROLE watcher LOGIN PASSWORD 'watcher-pw'");
            try {
                Run hidden = doctorPostgres(url("dlock", "watcher", "watcher-pw"));
                assertThat(hidden.line("standbys")).as(hidden.toString()).startsWith("WARN ")
                        .contains("may not see", "pg_read_all_stats");
            } finally {
                postgres.sql("DROP ROLE watcher");
            }

            alterSystem("synchronous_standby_names", "*");
            await().atMost(Duration.ofSeconds(30)).until(() -> postgres.sql("SELECT sync_state FROM pg_stat_replication")
                    .equals("sync"));
            Run synchronous = doctorPostgres(postgres.jdbcUrl());
            assertThat(synchronous.line("standbys")).as(synchronous.toString()).startsWith("OK ")
                    .contains("every grant a client heard of is on the standby when it is promoted");

            postgres.sql("ALTER ROLE dlock SET synchronous_commit = 'local'");
            Run local = doctorPostgres(postgres.jdbcUrl());
            assertThat(local.line("standbys")).as(local.toString()).startsWith("WARN ").contains("do not wait");
            postgres.sql("ALTER ROLE dlock RESET synchronous_commit");

            alterSystem("synchronous_standby_names", "nosuch");
            Run misnamed = doctorPostgres(postgres.jdbcUrl());
            assertThat(misnamed.line("standbys")).as(misnamed.toString()).startsWith("FAIL ")
                    .contains("'nosuch', but no such standby is connected", "hangs");
            // the doctor's own NOTIFY probes do not wait for the standby that is not there
            assertThat(misnamed.line("notify")).as(misnamed.toString()).startsWith("OK ");
            assertThat(misnamed.exit()).isEqualTo(2);
        }
    }

    @Test
    void asynchronousCommitOrAReadOnlyRoleAreNamed() {
        postgres.sql("ALTER ROLE dlock SET synchronous_commit = 'off'");
        Run asynchronous = doctorPostgres(postgres.jdbcUrl());
        assertThat(asynchronous.line("commit")).as(asynchronous.toString()).startsWith("WARN ")
                .contains("synchronous_commit off for role dlock", "may forget the last grants");
        assertThat(asynchronous.exit()).isEqualTo(1);

        postgres.sql("ALTER ROLE dlock RESET synchronous_commit");
        // on another database than the one the harness's psql resets things in
        postgres.sql("ALTER DATABASE fresh SET default_transaction_read_only = on");
        Run readOnly = doctorPostgres(url("fresh", "dlock", postgres.password()));
        assertThat(readOnly.line("recovery")).as(readOnly.toString()).startsWith("FAIL ")
                .contains("default_transaction_read_only is on for role dlock");
        assertThat(readOnly.exit()).isEqualTo(2);
    }

    @Test
    void timeoutsOfTheRoleThatCutDlocksCallsOrConnectionsWarn() {
        postgres.sql("ALTER ROLE dlock SET idle_session_timeout = '1s'");
        Run idle = doctorPostgres(postgres.jdbcUrl());
        assertThat(idle.line("timeouts")).as(idle.toString()).startsWith("WARN ")
                .contains("idle_session_timeout 1s: shorter than the watchdog's renewal interval");
        // the doctor's own sessions are not cut: the NOTIFY it waits for still arrives
        assertThat(idle.line("notify")).as(idle.toString()).startsWith("OK ");
        assertThat(idle.exit()).isEqualTo(1);

        // a DBA's usual guard: dlock reconnects after such pauses, nothing fails
        postgres.sql("ALTER ROLE dlock SET idle_session_timeout = '10min'");
        Run guard = doctorPostgres(postgres.jdbcUrl());
        assertThat(guard.line("timeouts")).as(guard.toString()).startsWith("OK ")
                .contains("the server closes connections idle for 10min");

        postgres.sql("ALTER ROLE dlock RESET idle_session_timeout");
        postgres.sql("ALTER ROLE dlock SET statement_timeout = '500ms'");
        postgres.sql("ALTER ROLE dlock SET idle_in_transaction_session_timeout = '1s'");
        Run statement = doctorPostgres(postgres.jdbcUrl());
        assertThat(statement.line("timeouts")).as(statement.toString()).startsWith("WARN ")
                .contains("statement_timeout 500ms: the server cancels a call", "idle_in_transaction_session_timeout 1s")
                .doesNotContain("idle_in_transaction_session_timeout 1s:");
        assertThat(statement.exit()).isEqualTo(1);
    }

    @Test
    void pgBouncerInTransactionPoolingWarns() {
        try (PgBouncer bouncer = PgBouncer.start(postgres, 4)) {
            Run pooled = doctorPostgres(bouncer.jdbcUrl());
            assertThat(pooled.line("pooler")).as(pooled.toString()).startsWith("WARN ")
                    .contains("transaction pooling", "the URL has prepareThreshold=0");
            assertThat(pooled.line("notify")).as(pooled.toString()).startsWith("WARN ").contains("did not arrive");
            assertThat(pooled.exit()).as(pooled.toString()).isEqualTo(1);

            // dlock prepares nothing on the server once it polls; the application's statements still need the parameter
            Run unprepared = doctorPostgres(bouncer.jdbcUrl().replace("&prepareThreshold=0", ""));
            assertThat(unprepared.line("pooler")).as(unprepared.toString()).startsWith("WARN ")
                    .contains("the application's own statements through this pooler need prepareThreshold=0");
            assertThat(unprepared.exit()).isEqualTo(1);
        }
    }

    @Test
    void pgBouncerInSessionPoolingIsOk() {
        try (PgBouncer bouncer = PgBouncer.start(postgres, 4, "session")) {
            Run run = doctorPostgres(bouncer.jdbcUrl().replace("&prepareThreshold=0", ""));
            assertThat(run.line("pooler")).as(run.toString()).startsWith("OK ").contains("a pooler in front",
                    "session pooling");
            assertThat(run.line("notify")).as(run.toString()).startsWith("OK ");
            assertThat(run.line("connections")).as(run.toString()).contains("behind the pooler");
        }
    }

    @Test
    void aRoleWithoutThePrivilegesItNeedsFails() {
        postgres.sql("CREATE ROLE app LOGIN PASSWORD 'app-pw' CONNECTION LIMIT 3");
        try {
            // PostgreSQL 15 grants no CREATE on the public schema to other roles
            Run cannotCreate = doctorPostgres(url("fresh", "app", "app-pw"));
            assertThat(cannotCreate.line("privileges")).as(cannotCreate.toString()).startsWith("FAIL ")
                    .contains("may not create it (no CREATE on schema \"public\")", "GRANT CREATE ON SCHEMA \"public\" TO app");
            assertThat(cannotCreate.exit()).isEqualTo(2);

            Run noTables = doctorPostgres(url("dlock", "app", "app-pw"));
            assertThat(noTables.line("privileges")).as(noTables.toString()).startsWith("FAIL ")
                    .contains("role app lacks", "INSERT on dlock_hold").doesNotContain("EXECUTE");
            assertThat(noTables.line("connections")).as(noTables.toString()).startsWith("WARN ")
                    .contains("role app limited to 3");

            postgres.sql("REVOKE USAGE ON SCHEMA public FROM PUBLIC");
            Run noUsage = doctorPostgres(url("dlock", "app", "app-pw"));
            assertThat(noUsage.line("privileges")).as(noUsage.toString()).startsWith("FAIL ")
                    .contains("role app lacks USAGE on schema \"public\"", "INSERT on dlock_hold");
            postgres.sql("GRANT USAGE ON SCHEMA public TO PUBLIC");

            postgres.sql("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app");
            postgres.sql("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO app");
            postgres.sql("REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC");
            Run noExecute = doctorPostgres(url("dlock", "app", "app-pw"));
            assertThat(noExecute.line("privileges")).as(noExecute.toString()).startsWith("FAIL ")
                    .contains("EXECUTE on dlock_acquire,").doesNotContain("INSERT on");

            postgres.sql("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO PUBLIC");
            Run allowed = doctorPostgres(url("dlock", "app", "app-pw"));
            assertThat(allowed.line("privileges")).as(allowed.toString()).startsWith("OK ");
        } finally {
            postgres.sql("GRANT USAGE ON SCHEMA public TO PUBLIC");
            postgres.sql("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO PUBLIC");
            postgres.sql("DROP OWNED BY app");
            postgres.sql("DROP ROLE app");
        }
    }

    @Test
    void aSchemaOfAnotherVersionOrIncompleteFails() {
        postgres.sql("CREATE DATABASE damaged");
        String damaged = url("damaged", "dlock", postgres.password());
        LockClient.builder().store(PostgresStore.url(damaged)).build().close();
        psql("damaged", "CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer LANGUAGE sql IMMUTABLE "
                + "AS $$ SELECT 5 $$");
        Run newer = doctorPostgres(damaged);
        assertThat(newer.line("schema")).as(newer.toString()).startsWith("FAIL ").contains("version 5, this dlock's is 4");
        assertThat(newer.exit()).isEqualTo(2);

        psql("damaged", "CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer LANGUAGE sql IMMUTABLE "
                + "AS $$ SELECT 4 $$");
        psql("damaged", "DROP TABLE dlock_waiter; DROP FUNCTION dlock_sweep");
        Run incomplete = doctorPostgres(damaged);
        assertThat(incomplete.line("schema")).as(incomplete.toString()).startsWith("FAIL ")
                .contains("incomplete: no table dlock_waiter; no function dlock_sweep");
        assertThat(incomplete.exit()).isEqualTo(2);
    }

    @Test
    void autovacuumOffOrDeadRowsPilingUpWarn() {
        postgres.sql("ALTER TABLE dlock_hold SET (autovacuum_enabled = false)");
        Run tableOff = doctorPostgres(postgres.jdbcUrl());
        assertThat(tableOff.line("vacuum")).as(tableOff.toString()).startsWith("WARN ")
                .contains("autovacuum is off for dlock_hold");
        assertThat(tableOff.exit()).isEqualTo(1);

        // lock churn's trace: a row per grant, deleted at the release
        postgres.sql("INSERT INTO dlock_hold SELECT 'dlock:{churn-' || g || '}', 'o', 'x', 1, g, now(), now(), '', 0, 0 "
                + "FROM generate_series(1, 20000) g");
        postgres.sql("DELETE FROM dlock_hold WHERE owner = 'o'");
        await().atMost(Duration.ofSeconds(30)).until(() -> Long.parseLong(postgres.sql(
                "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'dlock_hold'")) >= 20000);
        Run dead = doctorPostgres(postgres.jdbcUrl());
        assertThat(dead.line("vacuum")).as(dead.toString()).startsWith("WARN ").contains("dlock_hold has 2", "dead rows");
        postgres.sql("VACUUM dlock_hold");

        alterSystem("autovacuum", "off");
        Run serverOff = doctorPostgres(postgres.jdbcUrl());
        assertThat(serverOff.line("vacuum")).as(serverOff.toString()).startsWith("WARN ")
                .contains("autovacuum is off on the server");
    }

    @Test
    void moreClientsThanTheConnectionsLeftWarn() {
        // 300 connections (the harness's max_connections) against 40 clients of up to 9
        Run run = doctorPostgres(postgres.jdbcUrl(), "--clients", "40");
        assertThat(run.line("connections")).as(run.toString()).startsWith("WARN ")
                .contains("max_connections 300", "40 client(s) of dlock take up to 360");
        assertThat(run.exit()).isEqualTo(1);
    }

    @Test
    void aClientWhoseClockIsOffWarns(@TempDir Path dir) {
        StringBuilder whyNot = new StringBuilder();
        Path library = SkewedClockLibrary.compile(dir, whyNot).orElseThrow(() -> new AssertionError(whyNot));
        Cli.Result run = Cli.start(SkewedClockLibrary.environment(library, 30_000, 1.0),
                "doctor", "--postgres", postgres.jdbcUrl()).await(Duration.ofSeconds(60));
        String clock = run.stdout().lines().filter(line -> line.startsWith("WARN  clock ")).findFirst()
                .orElseThrow(() -> new AssertionError("no WARN clock line in\n" + run));
        assertThat(clock).contains("ms ahead of the server's", "run NTP");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    }

    /** Runs SQL in another database of the server; the first column of the last result's first row, or null. */
    private static String psql(String database, String sql) {
        try (Connection connection = DriverManager.getConnection(url(database, PostgresServer.USER, postgres.password()));
                Statement statement = connection.createStatement()) {
            String first = null;
            boolean isResult = statement.execute(sql);
            if (isResult) {
                try (ResultSet rows = statement.getResultSet()) {
                    first = rows.next() ? rows.getString(1) : null;
                }
            }
            return first;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
