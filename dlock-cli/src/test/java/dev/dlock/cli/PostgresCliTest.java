package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(postgres.sql("SELECT count(*) FROM dlock_hold WHERE name = 'dlock:{" + name + "}'"))
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
}
