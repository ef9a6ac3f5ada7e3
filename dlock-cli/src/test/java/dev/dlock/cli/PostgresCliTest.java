package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.PostgresServer;
import dev.dlock.testing.RedisServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The commands with the locks in PostgreSQL ({@code --postgres URL}, or {@code $DLOCK_POSTGRES_URL}). */
class PostgresCliTest extends TopologyCliContract {

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    List<String> topology() {
        return List.of("--postgres", postgres.jdbcUrl());
    }

    @Override
    List<String> names() {
        return List.of("pg-report", "pg-backup");
    }

    @Override
    List<RedisServer> serversOf(String name) {
        return List.of();
    }

    @Override
    void assertStored(String name, boolean held, String when) {
        assertThat(postgres.sql("SELECT count(*) FROM dlock_hold WHERE name = 'dlock:{" + name + "}'"
                + " AND lease_end > clock_timestamp()"))
                .as("row of '%s' in dlock_hold %s", name, when).isEqualTo(held ? "1" : "0");
    }

    @Test
    void theUrlMayComeFromTheEnvironment() {
        Cli.Result result = Cli.start(Map.of("DLOCK_POSTGRES_URL", postgres.jdbcUrl()),
                "exec", "--wait", "10s", "from-env", "--", "sh", "-c", "test -n \"$DLOCK_FENCING_TOKEN\"")
                .await(java.time.Duration.ofSeconds(60));
        assertThat(result.exitCode()).as(result.toString()).isZero();
    }

    @Test
    void aUrlThatIsNotPostgresIsBadInput() {
        Cli.Result result = Cli.run("--postgres", "mysql://db/app", "status", "x");
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.stderr()).contains("--postgres: not a PostgreSQL URL: 'mysql://db/app'");
    }

    @Test
    void aWrongPasswordIsBadInputAtOnceForEveryCommand() {
        String wrong = postgres.jdbcUrl().replace("password=" + postgres.password(), "password=wrong");
        for (List<String> command : List.of(List.of("exec", "--wait", "30s", "refused", "--", "true"),
                List.of("status", "refused"), List.of("list"), List.of("release", "--force", "refused"))) {
            List<String> args = new java.util.ArrayList<>(List.of("--postgres", wrong));
            args.addAll(command);
            long start = System.nanoTime();
            Cli.Result result = Cli.run(java.time.Duration.ofSeconds(60), args.toArray(String[]::new));
            assertThat(result.exitCode()).as("%s: %s", command, result).isEqualTo(ExitCodes.USAGE);
            assertThat(result.stderr()).as("%s", command).contains("password authentication failed for user \"dlock\"")
                    .doesNotContain("unreachable");
            // a refusal is not waited out: well under the 30 s wait
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).as("%s", command)
                    .isLessThan(java.time.Duration.ofSeconds(20));
        }
    }

    @Test
    void aDatabaseThatDoesNotExistIsBadInput() {
        Cli.Result result = Cli.run(java.time.Duration.ofSeconds(60), "--postgres", postgres.jdbcUrl("nosuchdb"),
                "exec", "--wait", "30s", "no-db", "--", "true");
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.stderr()).contains("database \"nosuchdb\" does not exist");
    }

    @Test
    void aTableOfAnotherShapeIsBadInput() {
        postgres.sql("CREATE SCHEMA IF NOT EXISTS odd; CREATE TABLE IF NOT EXISTS odd.dlock_hold (name text)");
        Cli.Result result = Cli.run(java.time.Duration.ofSeconds(60), "--postgres", postgres.jdbcUrl(),
                "--postgres-schema", "odd", "exec", "--wait", "30s", "odd-shape", "--", "true");
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.stderr()).contains("dlock_hold has the wrong shape");
    }

    @Test
    void commandsThatOnlyReadNeverCreateTheSchema() {
        for (String command : List.of("status", "list", "release")) {
            List<String> args = new java.util.ArrayList<>(List.of("--postgres", postgres.jdbcUrl(),
                    "--postgres-schema", "never_made", command));
            args.addAll(command.equals("list") ? List.of() : command.equals("release") ? List.of("--force", "x") : List.of("x"));
            Cli.Result result = Cli.run(args.toArray(String[]::new));
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
            assertThat(result.stderr()).contains("dlock's schema is missing in schema \"never_made\"")
                    .contains("exec creates it on first use");
        }
        assertThat(postgres.sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'never_made'")).isEqualTo("0");
    }

    @Test
    void theSchemaIsNamedByOptionOrEnvironmentAndItsCreationMayBeTurnedOff() {
        Cli.Result created = Cli.run(java.time.Duration.ofSeconds(60), "--postgres", postgres.jdbcUrl(),
                "--postgres-schema", "cli_locks", "exec", "in-schema", "--", "true");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(postgres.sql("SELECT to_regclass('cli_locks.dlock_hold') IS NOT NULL")).isEqualTo("t");

        Cli.Result fromEnv = Cli.start(Map.of("DLOCK_POSTGRES_URL", postgres.jdbcUrl(), "DLOCK_POSTGRES_SCHEMA", "env_locks"),
                "exec", "from-env-schema", "--", "true").await(java.time.Duration.ofSeconds(60));
        assertThat(fromEnv.exitCode()).as(fromEnv.toString()).isZero();
        assertThat(postgres.sql("SELECT to_regclass('env_locks.dlock_hold') IS NOT NULL")).isEqualTo("t");

        Cli.Result refused = Cli.start(Map.of("DLOCK_POSTGRES_URL", postgres.jdbcUrl(), "DLOCK_POSTGRES_NO_CREATE_SCHEMA", "true"),
                "--postgres-schema", "not_allowed", "exec", "no-create", "--", "true").await(java.time.Duration.ofSeconds(60));
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.stderr()).contains("creating it is turned off").contains("V1__dlock.sql");
        Cli.Result switched = Cli.run(java.time.Duration.ofSeconds(60), "--postgres", postgres.jdbcUrl(),
                "--postgres-schema", "not_allowed", "--postgres-no-create-schema", "exec", "no-create", "--", "true");
        assertThat(switched.exitCode()).as(switched.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(postgres.sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'not_allowed'")).isEqualTo("0");
    }

    @Test
    void statusSaysWhereTheRowsAreNotARedisKey() {
        Cli.Result result = Cli.run("--postgres", postgres.jdbcUrl(), "status", "pg-words");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout()).contains("name 'dlock:{pg-words}' in dlock_hold").doesNotContain("key ");
    }

    @Test
    void throughPgBouncerInTransactionPoolingExecPollsAndStatusSkipsTheNotifyTest() {
        try (dev.dlock.testing.PgBouncer bouncer = dev.dlock.testing.PgBouncer.start(postgres, 2)) {
            // as an operator writes it: no prepareThreshold=0
            String url = bouncer.jdbcUrl().replace("&prepareThreshold=0", "");
            Cli.Result exec = Cli.run(java.time.Duration.ofSeconds(60), "--verbose", "--postgres", url,
                    "--postgres-polling", "50ms", "exec", "--wait", "20s", "pooled", "--", "true");
            assertThat(exec.exitCode()).as(exec.toString()).isZero();
            assertThat(exec.stderr()).doesNotContain("NOTIFY did not reach");
            for (String command : List.of("status", "list")) {
                Cli.Result result = Cli.run(java.time.Duration.ofSeconds(60), "--verbose", "--postgres", url,
                        command, command.equals("status") ? "pooled" : "*");
                assertThat(result.exitCode()).as(result.toString()).isZero();
                assertThat(result.stderr()).as(command).doesNotContain("NOTIFY did not reach");
            }
        }
    }
}
