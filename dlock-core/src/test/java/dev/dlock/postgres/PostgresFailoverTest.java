package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockInfo;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Fencing tokens and grants across the promotion of a streaming replica. */
class PostgresFailoverTest {

    @Test
    void tokensAfterAPromotionAreAboveEveryTokenBeforeAndASynchronousGrantIsOnTheReplica() {
        try (PostgresServer primary = PostgresServer.start();
                PostgresServer replica = primary.startReplica(true)) {
            long highestBefore = 0;
            try (LockClient client = LockClient.builder().store(PostgresStore.url(primary.jdbcUrl())).build()) {
                for (int i = 0; i < 20; i++) {
                    DistributedLock lock = client.getLock("token-" + (i % 3));
                    lock.lock();
                    highestBefore = Math.max(highestBefore, lock.fencingToken());
                    lock.unlock();
                }
                DistributedLock held = client.getLock("held-across");
                held.lock(Duration.ofMinutes(5));
                highestBefore = Math.max(highestBefore, held.fencingToken());
                // the client hears of the grant only after the synchronous standby has it
                primary.kill();
            }
            replica.promote();
            try (LockClient client = LockClient.builder().store(PostgresStore.url(replica.jdbcUrl())).build()) {
                LockInfo info = client.getLock("held-across").info();
                assertThat(info.isLocked()).as("the grant made before the failover is on the promoted replica").isTrue();
                assertThat(client.getLock("held-across").tryLock()).isFalse();
                for (int i = 0; i < 3; i++) {
                    DistributedLock lock = client.getLock("token-" + i);
                    lock.lock();
                    assertThat(lock.fencingToken()).isGreaterThan(highestBefore);
                    lock.unlock();
                }
            }
        }
    }

    @Test
    void tokensGoUpAcrossAnAsynchronousPromotionThatMissedTheLastGrants() {
        try (PostgresServer primary = PostgresServer.start();
                PostgresServer replica = primary.startReplica(false)) {
            long highestBefore;
            try (LockClient client = LockClient.builder().store(PostgresStore.url(primary.jdbcUrl())).build()) {
                DistributedLock lock = client.getLock("async");
                lock.lock();
                lock.unlock();
                // cut the replica off: it stops receiving, the primary goes on granting
                replica.sql("ALTER SYSTEM SET primary_conninfo = ''");
                replica.sql("SELECT pg_reload_conf()");
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                        primary.sql("SELECT count(*) FROM pg_stat_replication").equals("0"));
                for (int i = 0; i < 10; i++) {
                    lock.lock();
                    lock.unlock();
                }
                lock.lock();
                highestBefore = lock.fencingToken();
                primary.kill();
            }
            replica.promote();
            try (LockClient client = LockClient.builder().store(PostgresStore.url(replica.jdbcUrl())).build()) {
                DistributedLock lock = client.getLock("async");
                assertThat(lock.tryLock()).as("the promoted replica never had the last grant").isTrue();
                assertThat(lock.fencingToken()).isGreaterThan(highestBefore);
                lock.unlock();
            }
        }
    }

    @Test
    void aStandbyAtBuildIsRefusedNamingItWhetherPollingOrListening() {
        try (PostgresServer primary = PostgresServer.start();
                PostgresServer standby = primary.startReplica(false)) {
            LockClient.builder().store(PostgresStore.url(primary.jdbcUrl())).build().close();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                    !standby.sql("SELECT to_regclass('dlock_hold')").isEmpty());
            for (boolean polling : new boolean[] {true, false}) {
                PostgresStore store = PostgresStore.url(standby.jdbcUrl());
                dev.dlock.LockClientBuilder builder = LockClient.builder()
                        .store(polling ? store.polling(Duration.ofMillis(100)) : store);
                org.assertj.core.api.Assertions.assertThatThrownBy(builder::build)
                        .as("polling %s", polling)
                        .isInstanceOfSatisfying(dev.dlock.LockBackendException.class, e -> assertThat(e.nodeErrors())
                                .extracting(dev.dlock.NodeError::cause).containsExactly(dev.dlock.NodeError.Cause.REFUSED))
                        .hasMessageContaining("postgresql://127.0.0.1:" + standby.port() + "/dlock is a standby")
                        .hasMessageContaining("in recovery");
            }
            String bothHosts = "postgresql://dlock:" + primary.password() + "@127.0.0.1:" + standby.port() + ",127.0.0.1:"
                    + primary.port() + "/dlock?target_session_attrs=read-write";
            try (LockClient client = LockClient.builder().store(PostgresStore.url(bothHosts)).build()) {
                assertThat(client.getLock("on-the-primary").tryLock()).isTrue();
                assertThat(primary.sql("SELECT count(*) FROM dlock_hold WHERE name = 'dlock:{on-the-primary}'")).isEqualTo("1");
            }
        }
    }
}
