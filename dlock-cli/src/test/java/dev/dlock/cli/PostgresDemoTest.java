package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.DemoTest.Row;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The flash-sale demo on PostgreSQL ({@code --postgres URL} or {@code $DLOCK_POSTGRES_URL}), its
 * numbers checked against the orders PostgreSQL recorded.
 */
class PostgresDemoTest {

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

    @AfterEach
    void dropTheDemosRows() {
        postgres.sql("DO $$ BEGIN IF to_regclass('dlock_demo_stock') IS NOT NULL THEN "
                + "TRUNCATE dlock_demo_stock, dlock_demo_order; END IF; END $$");
    }

    @Test
    void lockModeSellsExactlyTheStockAndPostgresRecordedIt() {
        Cli.Result result = Cli.run(Duration.ofSeconds(120), "--postgres", postgres.jdbcUrl(), "demo", "--mode", "lock",
                "--stock", "7", "--buyers", "300", "--clients", "3", "--threads", "2", "--keep-data");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().findFirst()).hasValue("postgres: using --postgres postgresql://127.0.0.1:"
                + postgres.port() + "/dlock (stock and orders in the tables dlock_demo_stock and dlock_demo_order)");
        assertThat(result.stdout()).as("no password in the output").doesNotContain(postgres.password());
        Row lock = DemoTest.row(result, "lock");
        assertThat(lock.sold()).isEqualTo(7);
        assertThat(lock.oversold()).isZero();
        assertThat(lock.served()).isEqualTo(300);
        assertThat(postgres.sql("SELECT count(*) FROM dlock_demo_order WHERE sale LIKE '%:lock'"))
                .as("orders in PostgreSQL").isEqualTo("7");
        assertThat(postgres.sql("SELECT units FROM dlock_demo_stock WHERE sale LIKE '%:lock'"))
                .as("stock left in PostgreSQL").isEqualTo("0");
        assertThat(postgres.sql("SELECT count(*) FROM dlock_hold WHERE name = 'dlock:{flash-sale:phone}'"
                + " AND lease_end > clock_timestamp()"))
                .as("the lock lived in PostgreSQL, and was let go").isEqualTo("0");
        assertThat(result.stdout()).contains("lock:   sold 7 of 7 phones, exactly the stock");
    }

    @Test
    void aLibpqUrlWithItsPasswordRunsTheDemoAsTheLockClientTakesIt() {
        String libpq = "postgresql://dlock:" + postgres.password() + "@127.0.0.1:" + postgres.port() + "/dlock";
        Cli.Result result = Cli.run(Duration.ofSeconds(120), "--postgres", libpq, "demo", "--mode", "lock",
                "--stock", "3", "--buyers", "40", "--clients", "2", "--threads", "2");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout()).as("no password in the output").doesNotContain(postgres.password());
        assertThat(DemoTest.row(result, "lock").sold()).isEqualTo(3);
    }

    @Test
    void nolockModeFromTheEnvironmentReportsTheOversellPostgresRecorded() {
        Cli.Result result = Cli.start(Map.of("DLOCK_POSTGRES_URL", postgres.jdbcUrl()), "demo", "--mode", "nolock",
                "--stock", "5", "--buyers", "400", "--keep-data").await(Duration.ofSeconds(120));

        assertThat(result.exitCode()).as("an oversell without the lock is the demo's point, not a failure: "
                + result).isZero();
        assertThat(result.stdout().lines().findFirst()).hasValueSatisfying(
                first -> assertThat(first).startsWith("postgres: using DLOCK_POSTGRES_URL postgresql://127.0.0.1:"));
        long recorded = Long.parseLong(postgres.sql("SELECT count(*) FROM dlock_demo_order WHERE sale LIKE '%:nolock'"));
        Row nolock = DemoTest.row(result, "nolock");
        assertThat(nolock.sold()).isEqualTo(recorded);
        assertThat(nolock.oversold()).isEqualTo(Math.max(0, recorded - 5));
        assertThat(nolock.served()).isEqualTo(400);
    }

    @Test
    void bothModesLeaveNoRowBehind() {
        Cli.Result result = Cli.run(Duration.ofSeconds(120), "--postgres", postgres.jdbcUrl(), "demo",
                "--buyers", "200", "--stock", "4");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(DemoTest.row(result, "nolock").served()).isEqualTo(200);
        assertThat(DemoTest.row(result, "lock").sold()).isEqualTo(4);
        assertThat(result.stdout()).containsPattern("(?m)^  reentrant\\s+acquired\\s+200\\s");
        assertThat(result.stderr()).isEmpty();
        assertThat(postgres.sql("SELECT (SELECT count(*) FROM dlock_demo_stock) + (SELECT count(*) FROM dlock_demo_order)"
                + " + (SELECT count(*) FROM dlock_hold WHERE lease_end > clock_timestamp()) + (SELECT count(*) FROM dlock_waiter)"))
                .as("stock, orders, holds and waiters").isEqualTo("0");
    }

    @Test
    void withNoPostgresThereItSaysWhatToPassAndStartsNone() {
        int port = unusedPort();
        Cli.Result result = Cli.run("--postgres", "jdbc:postgresql://127.0.0.1:" + port + "/shop?user=app&password=s3cret",
                "demo", "--buyers", "10");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(result.stderrLines()).as(result.toString()).hasSize(1);
        assertThat(result.stderr()).as(result.toString())
                .startsWith("dlock: cannot connect to PostgreSQL at postgresql://127.0.0.1:" + port + "/shop (--postgres): ")
                .contains("Give --postgres jdbc:postgresql://HOST:5432/DATABASE?user=USER&password=PASSWORD of a running "
                        + "PostgreSQL (or set DLOCK_POSTGRES_URL); the demo starts none of its own")
                .doesNotContain("s3cret");
        assertThat(result.stdout()).as("no sale without a store").doesNotContain("flash sale");
    }

    @Test
    void aWrongPasswordIsBadInput() {
        String url = postgres.jdbcUrl().replace(postgres.password(), "not-the-password");
        Cli.Result result = Cli.run("--postgres", url, "demo", "--buyers", "10");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.stderrLines()).as(result.toString()).hasSize(1);
        assertThat(result.stderr()).as(result.toString())
                .startsWith("dlock: PostgreSQL at postgresql://127.0.0.1:" + postgres.port() + "/dlock (--postgres): ")
                .contains("password authentication failed", "check the user, password and database in the URL")
                .doesNotContain("not-the-password");
    }

    private static int unusedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
