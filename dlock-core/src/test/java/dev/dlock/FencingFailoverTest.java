package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisSentinelGroup;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens stay above every token granted before, even on a server whose clock is behind the
 * one that granted it: the token floor, raised by every grant in the same script, carries them.
 * A clock far ahead is simulated honestly by what it leaves behind: a floor far above this
 * machine's clock, as a grant on a master whose clock ran an hour ahead would have set it.
 */
class FencingFailoverTest {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    private static final long HOUR_US = TimeUnit.HOURS.toMicros(1);

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    private <T extends AutoCloseable> T track(T resource) {
        return resources.track(resource);
    }

    private static long serverMicros(RedisServer server) {
        List<?> time = (List<?>) server.command("TIME");
        return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
    }

    @Test
    void everyKindsFreshTokenExceedsTheFloorAndRaisesIt() throws Exception {
        RedisServer server = track(RedisServer.start());
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(server.uri())).build());
        DistributedReadWriteLock rw = client.getReadWriteLock("rw");
        List<DistributedLock> locks = List.of(client.getLock("plain"), client.getFairLock("fair"), rw.writeLock(),
                rw.readLock());
        for (DistributedLock lock : locks) {
            long floor = serverMicros(server) + HOUR_US;
            server.command("SET", "dlock:token-floor", Long.toString(floor));
            assertThat(lock.tryLock()).as(lock.name()).isTrue();
            long token = lock.fencingToken();
            assertThat(token).as("token of %s above the floor %d", lock.name(), floor).isGreaterThan(floor);
            assertThat(Long.parseLong((String) server.command("GET", "dlock:token-floor")))
                    .as("floor after granting %s", lock.name()).isEqualTo(token);
            assertThat((Long) server.command("PTTL", "dlock:token-floor")).as("the floor expires").isPositive();
            lock.unlock();
        }
        assertThat(server.keys("*")).filteredOn(key -> !key.startsWith("dlock:client:"))
                .as("besides the client's record").containsExactly("dlock:token-floor");
    }

    @Test
    void tokensKeepRisingAcrossAFailoverToAReplicaWhoseClockIsBehind() throws Exception {
        RedisSentinelGroup group = track(RedisSentinelGroup.start("fencing"));
        RedisServer oldMaster = group.master();
        LockClient acked = track(LockClient.builder()
                .store(RedisStore.standalone(group.sentinelUri()).replicaAcks(2, Duration.ofMillis(400)))
                .commandTimeout(Duration.ofMillis(500)).build());
        // after the failover one replica is left: a client asking for 2 acknowledgements could not acquire
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri()))
                .commandTimeout(Duration.ofMillis(500)).build());

        DistributedLock lock = acked.getLock("fenced");
        lock.lock();
        long before = lock.fencingToken();
        lock.unlock();
        for (RedisServer replica : group.replicas()) {
            assertThat(Long.parseLong((String) replica.command("GET", "dlock:token-floor")))
                    .as("floor replicated with the grant to %s", replica).isEqualTo(before);
        }

        // the old master's clock an hour ahead: its grants left a floor an hour above this clock
        long floor = serverMicros(oldMaster) + HOUR_US;
        oldMaster.command("SET", "dlock:token-floor", Long.toString(floor), "PX", "600000");
        assertThat(oldMaster.command("WAIT", "2", "5000")).isEqualTo(2L);
        oldMaster.kill();
        RedisServer newMaster = group.awaitFailover(FAILOVER_BOUND);
        assertThat(serverMicros(newMaster)).as("the new master's clock is behind the floor").isLessThan(floor);

        long after = acquireOnce(client, "fenced");
        assertThat(after).as("first token on the promoted replica").isGreaterThan(floor);
        assertThat(acquireOnce(client, "other")).as("a token of another name").isGreaterThan(after);
    }

    /** Acquires and releases the lock once the client reaches the new master; the token it got. */
    private static long acquireOnce(LockClient client, String name) throws InterruptedException {
        long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
        while (true) {
            try {
                DistributedLock lock = client.getLock(name);
                if (lock.tryLock(1, TimeUnit.SECONDS)) {
                    long token = lock.fencingToken();
                    lock.unlock();
                    return token;
                }
            } catch (LockBackendException notYet) {
                // the client has not found the new master yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no grant on the new master within " + FAILOVER_BOUND);
            }
        }
    }
}
