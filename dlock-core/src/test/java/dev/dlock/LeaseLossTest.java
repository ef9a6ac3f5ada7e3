package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LeaseLossTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void watchdogReportsALockForceReleasedUnderIt() throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient holder = servers.newClient(builder -> builder
                .defaultLease(Duration.ofMillis(600)).commandTimeout(Duration.ofMillis(150))
                .listener(told::complete));
        DistributedLock lock = holder.getLock("snatched");
        lock.lock();
        servers.server().command("DEL", "dlock:{snatched}");
        assertThat(told.get(5, TimeUnit.SECONDS).getMessage()).contains("snatched");
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void aHoldLostOnAPausedRedisIsReportedWithRedisFailureNotAQuorum() throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient holder = servers.newClient(builder -> builder
                .defaultLease(Duration.ofSeconds(2)).commandTimeout(Duration.ofMillis(500))
                .listener(told::complete));
        DistributedLock lock = holder.getLock("unrenewed");
        lock.lock();
        servers.server().pause();
        try {
            String message = told.get(10, TimeUnit.SECONDS).getMessage();
            assertThat(message).contains("its lease could not be renewed before it ran out: ")
                    .contains("timed out after 500 ms").doesNotContain("quorum");
        } finally {
            servers.server().resume();
        }
    }
}
