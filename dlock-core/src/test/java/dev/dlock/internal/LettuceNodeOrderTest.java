package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.internal.lettuce.LettuceNode;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.TestSettings;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A node's commands reach Redis in the order they were issued, whichever threads issued them. */
class LettuceNodeOrderTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static final Settings SETTINGS = TestSettings.settings(null, null, null, null, Duration.ofSeconds(5), null, null, null);

    /**
     * The Redlock race of FairLockTest, made deterministic: an acquire is issued on node B from a
     * caller's thread while the I/O thread is busy (Netty queues it), then a reply callback on that
     * I/O thread (node A's reply; one I/O thread serves both nodes) sends B the abandon that
     * undoes it. The abandon must not overtake the acquire, or the lock stays held by nobody.
     */
    @Test
    void anAbandonSentFromAReplyCallbackReachesRedisAfterTheAcquireIssuedBeforeIt() throws Exception {
        RedisServer server = redis.server();
        ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(1).build();
        LettuceNode nodeA = new LettuceNode(resources, RedisURI.create(server.uri()), SETTINGS, false);
        LettuceNode nodeB = new LettuceNode(resources, RedisURI.create(server.uri()), SETTINGS, false);
        try {
            // the scripts are cached before the race (a NOSCRIPT retry is late by design)
            nodeB.eval(LuaScript.ABANDON, new String[] {"dlock:{order}", "dlock:{order}:queue", "dlock:{order}:waiters"},
                            "nobody", "dlock:{order}:released", "0", "0")
                    .get(5, TimeUnit.SECONDS);
            for (int round = 0; round < 3; round++) {
                raceOnce(server, nodeA, nodeB, "dlock:{order-" + round + "}");
            }
        } finally {
            nodeA.close();
            nodeB.close();
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    private static void raceOnce(RedisServer server, LettuceNode nodeA, LettuceNode nodeB, String lockKey)
            throws Exception {
        String[] keys = {lockKey, lockKey + ":queue", lockKey + ":waiters"};
        String[] key = {lockKey};
        String channel = lockKey + ":released";
        CountDownLatch ioThreadBusy = new CountDownLatch(1);
        CountDownLatch acquireIssued = new CountDownLatch(1);
        CompletableFuture<Object> abandoned = new CompletableFuture<>();
        boolean[] onIoThread = new boolean[1];
        // the server answers only once the callback is attached, so the callback runs on the I/O
        // thread that reads the reply, not on this thread
        server.pause();
        try {
            nodeA.eval(LuaScript.INSPECT, key).whenComplete((reply, error) -> {
                onIoThread[0] = Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread;
                ioThreadBusy.countDown();
                awaitQuietly(acquireIssued);
                nodeB.eval(LuaScript.ABANDON, keys, "owner-1", channel, "0", "0")
                        .whenComplete((released, failure) -> abandoned.complete(released));
            });
        } finally {
            server.resume();
        }
        assertThat(ioThreadBusy.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(onIoThread[0]).as("the reply callback runs on the I/O thread").isTrue();
        CompletableFuture<Object> acquired = nodeB.eval(LuaScript.ACQUIRE, keys, "owner-1", "60000", "holder", "0", "0",
                "", "0", "0");
        acquireIssued.countDown();

        acquired.get(5, TimeUnit.SECONDS);
        assertThat(abandoned.get(5, TimeUnit.SECONDS)).as("the abandon found the acquire's hold").isEqualTo(1L);
        assertThat(server.keys(lockKey)).isEmpty();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
