package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class UnreachableRedisTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void buildFailsWithTheAddressWhenNothingListens() {
        RedisServer gone = RedisServer.start();
        String uri = gone.uri();
        gone.close();
        assertThatThrownBy(() -> LockClient.builder().redisUri(uri).commandTimeout(Duration.ofMillis(500)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("cannot connect")
                .hasMessageContaining(uri);
    }

    @Test
    void tryLockThrowsInsteadOfReturningFalseWhenRedisIsDown() {
        LockClient client = clients.track(clients.builder(redis.server()).commandTimeout(Duration.ofMillis(300)).build());
        DistributedLock lock = client.getLock("down");
        redis.server().kill();
        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("down")
                .hasMessageContaining(redis.server().uri());
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .isInstanceOf(LockBackendException.class);
    }

    @Test
    void pausedRedisGivesAnOutcomeUnknownTimeout() {
        LockClient client = clients.track(clients.builder(redis.server()).commandTimeout(Duration.ofMillis(300)).build());
        DistributedLock lock = client.getLock("paused");
        redis.server().pause();
        assertThatThrownBy(lock::lock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("outcome unknown")
                .hasMessageContaining("timed out after 300 ms");
        redis.server().resume();
        // the best-effort release sent with the failure leaves the lock free once Redis answers
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> redis.server().keys("*").isEmpty());
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }
}
