package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisRestartTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void waitersAcquireAfterRestartWithEmptyScriptCache() throws Exception {
        LockClient holderClient = clients.client(redis.server());
        LockClient waiterClient = clients.client(redis.server());
        DistributedLock holder = holderClient.getLock("restart");
        holder.lock(Duration.ofSeconds(60));

        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = waiterClient.getLock("restart");
                lock.lock();
                try {
                    return lock.fencingToken();
                } finally {
                    lock.unlock();
                }
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                redis.server().command("PUBSUB", "NUMSUB", "dlock:{restart}:released").toString().endsWith(", 1]"));

        redis.server().restart();
        assertThat(redis.server().command("SCRIPT", "EXISTS", "0000000000000000000000000000000000000000")).isNotNull();

        // the holder's 60 s lease is gone with the data: the waiters must not wait for it
        for (CompletableFuture<Long> waiter : waiters) {
            assertThat(waiter.get(20, TimeUnit.SECONDS)).isPositive();
        }
        assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
        assertThat(redis.server().keys("*")).isEmpty();
    }

    @Test
    void scriptsReloadAfterRestart() throws Exception {
        DistributedLock lock = clients.client(redis.server()).getLock("reload");
        lock.lock();
        lock.unlock();
        redis.server().restart();
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            lock.lock();
            lock.unlock();
            return true;
        });
        assertThat(redis.server().keys("*")).isEmpty();
    }
}
