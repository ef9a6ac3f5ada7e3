package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.internal.redis.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisRestartTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    /**
     * Three waiters, each on its own client so that each shows up as a subscriber of the lock's
     * channel once its first attempt was refused, block behind a 60 s lease. The server restarts
     * empty (no data, no script cache); the waiters must not wait out the gone lease: their
     * clients reconnect, the next attempt gets NOSCRIPT, the scripts are loaded again, and each
     * waiter gets the lock in turn.
     */
    @Test
    void waitersAcquireAfterRestartWithEmptyScriptCache() throws Exception {
        int waiterCount = 3;
        DistributedLock holder = servers.newClient().getLock("restart");
        holder.lock(Duration.ofSeconds(60));

        ExecutorService pool = Executors.newFixedThreadPool(waiterCount);
        servers.track(pool::shutdownNow);
        List<Future<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < waiterCount; i++) {
            DistributedLock lock = servers.newClient().getLock("restart");
            waiters.add(pool.submit(() -> {
                lock.lock();
                try {
                    return lock.fencingToken();
                } finally {
                    lock.unlock();
                }
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                servers.server().command("PUBSUB", "NUMSUB", "dlock:{restart}:released").equals(
                        List.of("dlock:{restart}:released", (long) waiterCount)));
        assertThat(waiters).as("all blocked behind the 60 s lease before the restart")
                .allSatisfy(waiter -> assertThat(waiter).isNotDone());

        servers.server().restart();

        // the holder's 60 s lease is gone with the data: the waiters must not wait for it
        List<Long> tokens = new ArrayList<>();
        for (Future<Long> waiter : waiters) {
            tokens.add(waiter.get(20, TimeUnit.SECONDS));
        }
        assertThat(tokens).hasSize(waiterCount).allSatisfy(token -> assertThat(token).isPositive()).doesNotHaveDuplicates();
        assertThat(scriptsCached(LuaScript.ACQUIRE, LuaScript.RELEASE)).as("loaded again after the restart")
                .containsOnly(1L);
        assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    @Test
    void scriptsReloadAfterRestart() throws Exception {
        DistributedLock lock = servers.newClient().getLock("reload");
        lock.lock();
        lock.unlock();
        assertThat(scriptsCached(LuaScript.ACQUIRE, LuaScript.RELEASE)).containsOnly(1L);

        servers.server().restart();
        // nothing has called a script since: the cache is really empty, as after a crash
        assertThat(scriptsCached(LuaScript.values())).containsOnly(0L);

        // the first calls may fail while the client reconnects; once through, NOSCRIPT was handled
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            lock.lock();
            lock.unlock();
            return true;
        });
        // one NOSCRIPT loads every script, not only the one that was called
        assertThat(scriptsCached(LuaScript.values())).containsOnly(1L);
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    /** @return SCRIPT EXISTS for each script's SHA-1, in order: 1 cached, 0 not */
    @SuppressWarnings("unchecked")
    private static List<Object> scriptsCached(LuaScript... scripts) {
        String[] command = new String[scripts.length + 2];
        command[0] = "SCRIPT";
        command[1] = "EXISTS";
        for (int i = 0; i < scripts.length; i++) {
            command[i + 2] = scripts[i].sha1();
        }
        return (List<Object>) servers.server().command(command);
    }
}
