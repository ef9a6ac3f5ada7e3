package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redlock over 5 real, independent redis-server processes. */
class RedlockTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.masters(5);

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    private LockClient redlock(Duration watchdogLease) {
        return clients.track(LockClient.builder()
                .redlockNodes(redis.uris().toArray(String[]::new))
                .defaultLease(watchdogLease)
                .commandTimeout(Duration.ofMillis(Math.min(2000, watchdogLease.toMillis() / 4)))
                .build());
    }

    private static void takeByAnotherOwner(RedisServer server, String name) {
        server.command("HSET", "dlock:{" + name + "}", "o", "someone-else", "c", "1", "t", "1", "h", "other");
        server.command("PEXPIRE", "dlock:{" + name + "}", "30000");
    }

    @Test
    void acquiresExactlyWhenAtMostTwoOfFiveNodesAreTakenElsewhere() throws Exception {
        LockClient client = redlock(Duration.ofSeconds(10));
        for (int taken = 0; taken < 32; taken++) {
            String name = "combination-" + taken;
            for (int node = 0; node < 5; node++) {
                if ((taken & (1 << node)) != 0) {
                    takeByAnotherOwner(redis.get(node), name);
                }
            }
            DistributedLock lock = client.getLock(name);
            boolean expected = Integer.bitCount(taken) <= 2;
            assertThat(lock.tryLock()).as("nodes taken: %s", Integer.toBinaryString(taken)).isEqualTo(expected);
            if (expected) {
                lock.unlock();
                for (int node = 0; node < 5; node++) {
                    boolean takenHere = (taken & (1 << node)) != 0;
                    // our copies are gone everywhere; the other owner's copies are untouched
                    assertThat(redis.get(node).command("HGET", "dlock:{" + name + "}", "o"))
                            .isEqualTo(takenHere ? "someone-else" : null);
                }
            } else {
                for (int node = 0; node < 5; node++) {
                    boolean takenHere = (taken & (1 << node)) != 0;
                    RedisServer server = redis.get(node);
                    // a failed attempt is released on every node it reached
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            String.valueOf(server.command("HGET", "dlock:{" + name + "}", "o"))
                                    .equals(takenHere ? "someone-else" : "null"));
                }
            }
        }
    }

    @Test
    void twoDeadNodesAreToleratedThreeAreReportedByName() throws Exception {
        LockClient client = redlock(Duration.ofSeconds(5));
        DistributedLock lock = client.getLock("dead-nodes");
        redis.get(0).kill();
        redis.get(3).kill();
        for (int i = 0; i < 5; i++) {
            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
        }
        redis.get(4).kill();
        long start = System.nanoTime();
        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("no quorum reachable")
                .hasMessageContaining(redis.get(0).uri())
                .hasMessageContaining(redis.get(3).uri())
                .hasMessageContaining(redis.get(4).uri())
                .hasMessageNotContaining(redis.get(1).uri())
                // a dead node is told apart from a slow one
                .hasMessageContaining(redis.get(0).uri() + ": timed out after 500 ms (not connected: unreachable)");
        // bounded by the per-node timeout (5 s lease / 10), not by the lease
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2000);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(redis.get(1).keys("dlock:{*")).isEmpty();
    }

    @Test
    void pausedNodeDoesNotHoldUpAcquireOrRelease() throws Exception {
        LockClient client = clients.track(LockClient.builder()
                .redlockNodes(redis.uris().toArray(String[]::new))
                .redlockNodeTimeout(Duration.ofMillis(300))
                .build());
        DistributedLock lock = client.getLock("paused-node");
        redis.get(2).pause();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(300 + 700);
        }
    }

    @Test
    void lockSurvivesAMinorityOfNodesLosingTheirDataAndIsLostWithAMajority() throws Exception {
        LockClient holderClient = redlock(Duration.ofMillis(900));
        DistributedLock holder = holderClient.getLock("restarted");
        DistributedLock rival = redlock(Duration.ofMillis(900)).getLock("restarted");
        holder.lock();
        long token = holder.fencingToken();

        redis.get(0).restart();
        redis.get(1).restart();
        // the watchdog puts the lost copies back once a quorum renewed the hold
        await().atMost(Duration.ofSeconds(5)).until(() ->
                redis.get(0).keys("dlock:{*").size() == 1 && redis.get(1).keys("dlock:{*").size() == 1);
        assertThat(rival.tryLock()).isFalse();
        assertThat(holder.isHeldByCurrentThread()).isTrue();
        holder.unlock();

        holder.lock();
        redis.get(2).restart();
        redis.get(3).restart();
        redis.get(4).restart();
        assertThat(rival.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(rival.fencingToken()).isGreaterThan(token);
        assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
        rival.unlock();
    }

    @Test
    void tokensIncreaseAcrossHoldersGrantedByDifferentMajorities() throws Exception {
        LockClient client = redlock(Duration.ofSeconds(5));
        DistributedLock lock = client.getLock("majorities");
        long previous = 0;
        for (int round = 0; round < 10; round++) {
            // two different nodes are taken elsewhere each round, so each grant comes from another majority
            takeByAnotherOwner(redis.get(round % 5), "majorities");
            takeByAnotherOwner(redis.get((round + 2) % 5), "majorities");
            assertThat(lock.tryLock()).isTrue();
            assertThat(lock.fencingToken()).isGreaterThan(previous);
            previous = lock.fencingToken();
            lock.unlock();
            redis.all().forEach(server -> server.command("DEL", "dlock:{majorities}"));
        }
    }

    @Test
    void releasedTokenRaisesTheFloorSoANodeWithASlowClockCannotGoBelowIt() throws Exception {
        LockClient client = redlock(Duration.ofSeconds(5));
        DistributedLock lock = client.getLock("floor");
        // node 0 behaves like a node whose clock runs far ahead: its proposals are huge
        long far = (System.currentTimeMillis() + TimeUnit.DAYS.toMillis(365)) * 1000;
        redis.get(0).command("SET", "dlock:token-floor", Long.toString(far));
        // nodes 3 and 4 are taken, so the quorum must include node 0 (whose answer may come last,
        // e.g. after reloading its scripts when an earlier test restarted it)
        takeByAnotherOwner(redis.get(3), "floor");
        takeByAnotherOwner(redis.get(4), "floor");
        assertThat(lock.tryLock()).isTrue();
        long high = lock.fencingToken();
        assertThat(high).isGreaterThan(far);
        lock.unlock();
        redis.get(3).command("DEL", "dlock:{floor}");
        redis.get(4).command("DEL", "dlock:{floor}");

        // the next majority excludes node 0; its nodes remember the released token
        takeByAnotherOwner(redis.get(0), "floor");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.fencingToken()).isGreaterThan(high);
        lock.unlock();
    }

    @Test
    void everyNodeMustBeDistinctAndThereMustBeThree() {
        assertThatThrownBy(() -> LockClient.builder().redlockNodes(redis.get(0).uri(), redis.get(1).uri()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3");
        assertThatThrownBy(() -> LockClient.builder().redlockNodes(redis.get(0).uri(), redis.get(0).uri(), redis.get(1).uri()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
        List<String> uris = redis.uris();
        assertThatThrownBy(() -> LockClient.builder().redisUri(uris.get(0)).redlockNodes(uris.toArray(String[]::new)).build())
                .isInstanceOf(IllegalStateException.class);
    }
}
