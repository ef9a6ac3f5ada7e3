package dev.dlock.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Streaming replication between {@link PostgresServer}s: a replica made by {@code pg_basebackup},
 * the primary's synchronous_standby_names, waiting for the replica to have the primary's WAL, and
 * promotion. Each step returns once the servers report the state it asked for.
 */
final class PostgresReplication {

    private static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(30);

    private PostgresReplication() {
    }

    /** See {@link PostgresServer#startReplica(boolean, int)}. */
    static PostgresServer startReplica(PostgresServer primary, List<String> settings, boolean synchronous, int replicaPort) {
        Path replicaDir = PostgresInstall.createTempDir("dlock-pg-replica-");
        PostgresInstall.run(PostgresInstall.asServerUser(List.of(PostgresInstall.binary("pg_basebackup"),
                "-h", primary.socketDir().toString(), "-p", Integer.toString(primary.port()), "-U", PostgresServer.USER,
                "-D", replicaDir.resolve("data").toString(), "-R", "-X", "stream", "-c", "fast")), replicaDir);
        PostgresLaunch.Started started;
        if (replicaPort == 0) {
            started = PostgresLaunch.onFreePort(replicaDir, settings);
        } else {
            PostgresLaunch launch = new PostgresLaunch(replicaDir, settings, replicaPort);
            started = new PostgresLaunch.Started(launch, launch.onItsPort());
        }
        PostgresServer replica = new PostgresServer(started);
        replicateSynchronously(primary, synchronous);
        return replica;
    }

    /** See {@link PostgresServer#replicateSynchronously(boolean)}. */
    static void replicateSynchronously(PostgresServer primary, boolean synchronous) {
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = '" + (synchronous ? "*" : "") + "'");
        primary.sql("SELECT pg_reload_conf()");
        String wanted = synchronous ? "sync" : "async";
        awaitTrue("a " + wanted + " replica streaming from " + primary, () -> !primary.sql(
                "SELECT 1 FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = '" + wanted + "'").isEmpty());
    }

    /** See {@link PostgresServer#awaitFlushedOn(PostgresServer)}. */
    static void awaitFlushedOn(PostgresServer primary, PostgresServer replica) {
        String flushed = primary.sql("SELECT pg_current_wal_flush_lsn()");
        awaitTrue(replica + " flushing " + flushed, () ->
                "t".equals(replica.sql("SELECT pg_last_wal_receive_lsn() >= '" + flushed + "'::pg_lsn")));
    }

    /** See {@link PostgresServer#promote()}. */
    static void promote(PostgresServer replica) {
        String promoted = replica.sql("SELECT pg_promote(true, 60)");
        if (!"t".equals(promoted)) {
            throw new IllegalStateException("pg_promote did not finish on " + replica + ": " + promoted);
        }
        awaitTrue(replica + " leaving recovery", () -> "f".equals(replica.sql("SELECT pg_is_in_recovery()")));
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + AWAIT_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            PostgresLaunch.pauseBriefly();
        }
    }
}
