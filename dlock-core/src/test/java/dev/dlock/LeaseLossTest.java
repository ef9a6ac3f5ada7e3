package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LeaseLossTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void unlockAfterTheLeaseExpiredReportsTheLossAndSparesTheNewHolder() throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient first = clients.track(clients.builder(redis.server()).listener(told::complete).build());
        DistributedLock lock = first.getLock("expiring");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
        long firstToken = lock.fencingToken();

        DistributedLock second = clients.client(redis.server()).getLock("expiring");
        assertThat(second.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(second.fencingToken()).isGreaterThan(firstToken);
        assertThat(lock.isHeldByCurrentThread()).isFalse();

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("expiring")
                .hasMessageContaining("lost")
                .satisfies(e -> assertThat(((LockLostException) e).fencingToken()).isEqualTo(firstToken));
        assertThat(told.get(5, TimeUnit.SECONDS).lockName()).isEqualTo("expiring");
        assertThat(second.isLocked()).isTrue();
        assertThat(second.info().fencingToken()).isEqualTo(second.fencingToken());
        second.unlock();
    }

    @Test
    void watchdogReportsALockForceReleasedUnderIt() throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient holder = clients.track(clients.builder(redis.server())
                .defaultLease(Duration.ofMillis(600)).commandTimeout(Duration.ofMillis(150))
                .listener(told::complete).build());
        DistributedLock lock = holder.getLock("snatched");
        lock.lock();
        redis.server().command("DEL", "dlock:{snatched}");
        assertThat(told.get(5, TimeUnit.SECONDS).getMessage()).contains("snatched");
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }
}
