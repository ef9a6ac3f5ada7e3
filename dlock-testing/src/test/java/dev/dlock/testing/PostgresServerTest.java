package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The harness's own PostgreSQL server and its replicas. PgBouncer is exercised by dlock-core's
 * PostgresBouncerTest and, restarted, by dlock-faults' ShortPostgresCampaignTest.
 */
class PostgresServerTest {

    @Test
    void dataSurvivesKillAndFastRestartAndTheServerRunsAsItsOwnProcesses() throws Exception {
        try (PostgresServer server = PostgresServer.start()) {
            server.sql("CREATE TABLE t (v int); INSERT INTO t VALUES (42)");
            long firstPid = server.pid();

            server.kill();
            assertThat(ProcessHandle.of(firstPid)).isEmpty();
            assertThat(server.isRunning()).isFalse();
            server.startAgain();
            assertThat(server.sql("SELECT v FROM t")).isEqualTo("42");

            server.restartFast();
            assertThat(server.sql("SELECT v FROM t")).isEqualTo("42");
            assertThat(server.pid()).isNotEqualTo(firstPid);
            assertThat(server.jdbcUrl()).contains(":" + server.port() + "/dlock");

            server.pause();
            assertThat(procState(server.pid())).isEqualTo("T");
            server.resume();
            assertThat(server.sql("SELECT 1")).isEqualTo("1");
        }
    }

    @Test
    void aNewReplicaTakesTheDeadPrimarysPortAndSwitchesBetweenAsynchronousAndSynchronous() {
        try (PostgresServer primary = PostgresServer.start();
             PostgresServer replica = primary.startReplica(true)) {
            primary.sql("CREATE TABLE t (v int); INSERT INTO t VALUES (1)");
            int deadPort = primary.port();
            primary.kill();
            replica.promote();
            try (PostgresServer again = replica.startReplica(false, deadPort)) {
                assertThat(again.port()).isEqualTo(deadPort);
                assertThat(replica.sql("SELECT sync_state FROM pg_stat_replication")).isEqualTo("async");
                replica.replicateSynchronously(true);
                assertThat(replica.sql("SELECT sync_state FROM pg_stat_replication")).isEqualTo("sync");
                replica.sql("INSERT INTO t VALUES (2)");
                replica.awaitFlushedOn(again);
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> again.sql("SELECT count(*) FROM t").equals("2"));
            }
        }
    }

    private static String procState(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }
}
