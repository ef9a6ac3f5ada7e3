package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The harness's own PostgreSQL server. Its replica and PgBouncer are exercised by dlock-core's
 * PostgresFailoverTest and PostgresBouncerTest.
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

    private static String procState(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }
}
