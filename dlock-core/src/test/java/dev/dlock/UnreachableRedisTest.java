package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class UnreachableRedisTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void buildFailsWithTheAddressWhenNothingListens() {
        RedisServer gone = RedisServer.start();
        String uri = gone.uri();
        gone.close();
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(uri)).commandTimeout(Duration.ofMillis(500)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("cannot connect")
                .hasMessageContaining(uri);
    }

    @Test
    void tryLockThrowsInsteadOfReturningFalseWhenRedisIsDown() {
        LockClient client = servers.newClient(builder -> builder.commandTimeout(Duration.ofMillis(300)));
        DistributedLock lock = client.getLock("down");
        servers.server().kill();
        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("down")
                .hasMessageContaining(servers.server().uri());
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("Redis unreachable for the whole wait of 1.0 s")
                .hasCauseInstanceOf(LockBackendException.class);
    }

    @Test
    void listLocksNamesTheServerThatDidNotAnswer() {
        LockClient client = servers.newClient(builder -> builder.commandTimeout(Duration.ofMillis(300)));
        servers.server().kill();
        assertThatThrownBy(() -> client.listLocks("*"))
                .isInstanceOf(LockBackendException.class)
                .hasMessageStartingWith("list failed: " + servers.server().uri() + ": ")
                .satisfies(e -> assertThat(((LockBackendException) e).nodeErrors()).hasSize(1));
    }

    @Test
    void pausedRedisGivesAnOutcomeUnknownTimeout() {
        LockClient client = servers.newClient(builder -> builder.commandTimeout(Duration.ofMillis(300))
                .outageTolerance(Duration.ofSeconds(1)));
        DistributedLock lock = client.getLock("paused");
        servers.server().pause();
        assertThatThrownBy(lock::lock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("outage tolerance of 1.0 s")
                .hasMessageContaining("outcome unknown")
                .hasMessageContaining("timed out after 300 ms");
        servers.server().resume();
        // the best-effort release sent with the failure leaves the lock free once Redis answers
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> servers.server().keys("*{*").isEmpty());
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }
}
