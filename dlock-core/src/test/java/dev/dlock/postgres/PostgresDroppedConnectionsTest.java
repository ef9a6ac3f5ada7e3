package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connections the server ended while the client kept them idle: a call that never reached the
 * server runs on a fresh connection, it neither fails nor reports its outcome unknown.
 */
class PostgresDroppedConnectionsTest {

    /** What a DBA sets against leaked idle sessions. */
    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create("idle_session_timeout=1s");

    @Test
    void aConnectionEndedByTheIdleSessionTimeoutIsReplacedNotAFailedCall() {
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())
                .polling(Duration.ofMillis(100))).build()) {
            for (int i = 0; i < 5; i++) {
                DistributedLock lock = client.getLock("after-idle-" + i);
                assertThat(lock.tryLock()).as("tryLock %d", i).isTrue();
                lock.unlock();
                awaitNoSessionOf("dlock");
            }
        }
    }

    @Test
    void connectionsEndedByTheServerAreReplacedNotAFailedCall() {
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())
                .polling(Duration.ofMillis(100))).build()) {
            for (int i = 0; i < 3; i++) {
                DistributedLock lock = client.getLock("after-terminate-" + i);
                assertThat(lock.tryLock()).as("tryLock %d", i).isTrue();
                lock.unlock();
                postgres.server().sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dlock'");
                awaitNoSessionOf("dlock");
            }
        }
    }

    @Test
    void theListenConnectionOutlivesTheIdleSessionTimeout() {
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build()) {
            String listening = listenPid();
            assertThat(listening).isNotEmpty();
            // the client's other connections sat idle past the timeout and are gone
            await().atMost(Duration.ofSeconds(30)).until(() -> "1".equals(postgres.server()
                    .sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dlock'")));
            assertThat(listenPid()).as("the LISTEN connection's backend").isEqualTo(listening);
            DistributedLock lock = client.getLock("listen-after-idle");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }

    private static String listenPid() {
        return postgres.server().sql("SELECT pid FROM pg_stat_activity WHERE application_name = 'dlock' AND query = 'SELECT pg_backend_pid()'");
    }

    private static void awaitNoSessionOf(String applicationName) {
        await().atMost(Duration.ofSeconds(30)).until(() -> "0".equals(postgres.server()
                .sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + applicationName + "'")));
    }
}
