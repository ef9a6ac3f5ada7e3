package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis that may evict keys can delete a held lock's key: the client warns at start when
 * maxmemory is set with a policy other than noeviction, and a holder whose key was evicted is told
 * its hold is lost, while its fencing token no longer passes a fenced resource once the next holder
 * has written.
 */
class EvictionTest {

    private static final String WARNING = "may evict lock keys";

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    private <T extends AutoCloseable> T track(T resource) {
        return resources.track(resource);
    }

    /** Builds a client and makes one round trip, after which the CONFIG reply (sent first) was handled. */
    private void useOnce(RedisServer server) {
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(server.uri())).build());
        client.getLock("eviction").isLocked();
    }

    @Test
    void warnsOnceWhenRedisMayEvictLockKeys() {
        RedisServer server = track(RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "volatile-lru"));
        useOnce(server);
        await().atMost(Duration.ofSeconds(5)).until(() -> stderr.text().contains(WARNING));
        assertThat(stderr.text()).contains(server.uri(), "volatile-lru", "noeviction");
        assertThat(stderr.text().split(WARNING, -1)).hasSize(2);
    }

    @Test
    void saysNothingWithNoevictionOrWithoutAMemoryLimit() {
        useOnce(track(RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "noeviction")));
        useOnce(track(RedisServer.start("--maxmemory", "0", "--maxmemory-policy", "allkeys-lru")));
        useOnce(track(RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru",
                "--rename-command", "CONFIG", "")));
        assertThat(stderr.text()).doesNotContain(WARNING);
    }

    @Test
    void aHolderWhoseKeyIsEvictedIsToldAndItsTokenIsFencedOff() {
        RedisServer server = track(RedisServer.start());
        // renewals every 2 s: the key is touched (LRU) rarely enough for the filler's keys to be younger
        LockClient holderClient = track(LockServers.lease(Duration.ofSeconds(6))
                .apply(LockClient.builder().store(RedisStore.standalone(server.uri()))).build());
        LockHandle held = holderClient.getLock("evicted").acquireAsync().join();
        FencedResource resource = new FencedResource();
        assertThat(resource.write(held.fencingToken())).isTrue();

        RedisClient admin = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            long used = Long.parseLong(redis.info("memory").lines().filter(line -> line.startsWith("used_memory:"))
                    .findFirst().orElseThrow().substring("used_memory:".length()).trim());
            redis.configSet("maxmemory", Long.toString(used + 2 * 1024 * 1024));
            redis.configSet("maxmemory-policy", "volatile-lru");
            String value = "x".repeat(10 * 1024);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int i = 0; redis.exists("dlock:{evicted}") == 1; i++) {
                assertThat(System.nanoTime() - deadline).as("lock key evicted within 60 s").isNegative();
                redis.set("filler:" + i, value, SetArgs.Builder.px(600_000));
            }
            // the server forgets the limit again, so the next holder's grant is not evicted in turn
            redis.configSet("maxmemory", "0");
        } finally {
            admin.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }

        LockLostException lost = held.whenLost().orTimeout(10, TimeUnit.SECONDS).join();
        assertThat(lost.lockName()).isEqualTo("evicted");
        assertThat(held.isValid()).isFalse();

        LockClient nextClient = track(LockClient.builder().store(RedisStore.standalone(server.uri())).build());
        LockHandle next = nextClient.getLock("evicted").tryAcquireAsync(Duration.ZERO).join().orElseThrow();
        assertThat(resource.write(next.fencingToken())).isTrue();
        assertThat(resource.write(held.fencingToken())).as("the evicted holder's write").isFalse();
        next.release();
    }

    /** A resource that accepts a write only with a token at least as high as any it has seen. */
    private static final class FencedResource {
        private long highest = Long.MIN_VALUE;

        synchronized boolean write(long token) {
            if (token < highest) {
                return false;
            }
            highest = token;
            return true;
        }
    }
}
