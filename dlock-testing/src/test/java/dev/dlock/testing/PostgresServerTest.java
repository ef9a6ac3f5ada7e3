package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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
    void aPromotedReplicaHasWhatTheSynchronousPrimaryCommitted() {
        try (PostgresServer primary = PostgresServer.start();
                PostgresServer replica = primary.startReplica(true)) {
            primary.sql("CREATE TABLE t (v int); INSERT INTO t VALUES (7)");
            // synchronous commit: the row's WAL is on the replica once the primary's commit returned,
            // and a promotion replays all of it
            primary.kill();
            replica.promote();
            assertThat(replica.sql("SELECT pg_is_in_recovery()")).isEqualTo("f");
            assertThat(replica.sql("SELECT count(*) FROM t")).isEqualTo("1");
            replica.sql("INSERT INTO t VALUES (8)");
        }
    }

    @Test
    void pgBouncerForwardsToTheServer() {
        try (PostgresServer server = PostgresServer.start();
                PgBouncer bouncer = PgBouncer.start(server, 4)) {
            String out = PostgresInstall.run(java.util.List.of(PostgresInstall.binary("psql"), "-X", "-A", "-t",
                    "-d", "host=127.0.0.1 port=" + bouncer.port() + " user=" + PostgresServer.USER
                            + " dbname=" + PostgresServer.DATABASE + " password=" + server.password(),
                    "-c", "SELECT 40 + 2"), null);
            assertThat(out.strip()).isEqualTo("42");
        }
    }

    private static String procState(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }
}
