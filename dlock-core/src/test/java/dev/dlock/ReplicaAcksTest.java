package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisSentinelGroup;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code replicaAcks}: a grant counts once enough replicas have it (WAIT), on real replicas. */
class ReplicaAcksTest {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    private <T extends AutoCloseable> T track(T resource) {
        return resources.track(resource);
    }

    /** A master and one replica in sync with it. */
    private RedisServer[] masterAndReplica() {
        // no 5 s pause before the first full sync (Redis 7 waits for more replicas by default)
        RedisServer master = track(RedisServer.start("--repl-diskless-sync-delay", "0"));
        RedisServer replica = track(RedisServer.start("--replicaof", master.host(), Integer.toString(master.port())));
        await().atMost(10, TimeUnit.SECONDS).until(() ->
                ((String) replica.command("INFO", "replication")).contains("master_link_status:up"));
        // and acknowledging: after a diskless sync the master streams writes to a replica only once
        // its first periodic acknowledgement (within a second) has come, so WAIT would count 0 until then
        io.lettuce.core.RedisClient probe = io.lettuce.core.RedisClient.create(master.uri());
        try (var connection = probe.connect()) {
            await().atMost(10, TimeUnit.SECONDS).until(() -> {
                connection.sync().set("probe", "1");
                return connection.sync().waitForReplication(1, 200) == 1;
            });
            connection.sync().del("probe");
        } finally {
            probe.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        return new RedisServer[] {master, replica};
    }

    @Test
    void theOptionIsCheckedWhenSetAndAgainstTheOthersWhenBuilt() {
        RedisStore redis = RedisStore.standalone("redis://h:6379");
        assertThatThrownBy(() -> redis.replicaAcks(0, Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 replica, got 0");
        assertThatThrownBy(() -> redis.replicaAcks(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms, got PT0S");
        assertThatThrownBy(() -> redis.replicaAcks(1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got null");
        assertThatThrownBy(() -> LockClient.builder().commandTimeout(Duration.ofMillis(200))
                .store(redis.replicaAcks(1, Duration.ofMillis(200))).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAcks timeout PT0.2S must be shorter than commandTimeout PT0.2S");
        assertThatThrownBy(() -> RedisStore.redlock("redis://a:1", "redis://b:1", "redis://c:1")
                .replicaAcks(1, Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Redlock");
    }

    @Test
    void anAcknowledgedGrantHoldsAndItsKeyIsOnTheReplica() throws Exception {
        RedisServer[] nodes = masterAndReplica();
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(nodes[0].uri()).replicaAcks(1, Duration.ofMillis(500)))
                .build());
        DistributedLock lock = client.getLock("acked");
        assertThat(lock.tryLock()).isTrue();
        // WAIT answered only once the replica had the grant: no polling needed
        assertThat(nodes[1].command("HGET", "dlock:{acked}", "t")).isEqualTo(Long.toString(lock.fencingToken()));
        assertThat(lock.tryLock()).as("re-entry, acknowledged too").isTrue();
        assertThat(nodes[1].command("HGET", "dlock:{acked}", "c")).isEqualTo("2");
        lock.unlock();
        lock.unlock();
        assertThat(nodes[0].keys("*{*")).isEmpty();
    }

    @Test
    void withItsOnlyReplicaStoppedAnAcquireFailsWithinItsBoundAndLeavesNothingHeld() throws Exception {
        RedisServer[] nodes = masterAndReplica();
        RedisServer master = nodes[0];
        Duration commandTimeout = Duration.ofSeconds(1);
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(master.uri()).replicaAcks(1, Duration.ofMillis(50))).commandTimeout(commandTimeout).build());
        nodes[1].pause();

        DistributedLock lock = client.getLock("unacked");
        long start = System.nanoTime();
        assertThatThrownBy(lock::tryLock).isInstanceOf(LockBackendException.class)
                .hasMessageContaining("lock 'unacked' acquired on " + master.uri())
                .hasMessageContaining("but only 0 of 1 replicas acknowledged within 50 ms; released");
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(elapsedMs).as("failed within its bound").isLessThan(commandTimeout.toMillis() + 1000);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        await().atMost(2, TimeUnit.SECONDS).until(() -> master.keys("*{*").isEmpty());

        // every kind's grant is given back the same way
        for (DistributedLock other : new DistributedLock[] {client.getFairLock("fair"),
                client.getReadWriteLock("rw").writeLock(), client.getReadWriteLock("rw2").readLock()}) {
            assertThatThrownBy(other::tryLock).as(other.name()).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("replicas acknowledged");
        }
        await().atMost(2, TimeUnit.SECONDS).until(() -> master.keys("*{*").isEmpty());

        nodes[1].resume();
        assertThat(lock.tryLock()).as("acknowledged again once the replica is back").isTrue();
        lock.unlock();
    }

    @Test
    void anAcquireWithAWaitGivesBackUnacknowledgedGrantsAndTriesAgainUntilItsWaitEnds() throws Exception {
        RedisServer[] nodes = masterAndReplica();
        RedisServer master = nodes[0];
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(master.uri()).replicaAcks(1, Duration.ofMillis(50))).commandTimeout(Duration.ofSeconds(1)).build());
        nodes[1].pause();

        DistributedLock lock = client.getLock("unacked-wait");
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.tryLock(1500, TimeUnit.MILLISECONDS)).isInstanceOf(LockBackendException.class)
                .hasMessageContaining("for the whole wait")
                .hasStackTraceContaining("but only 0 of 1 replicas acknowledged within 50 ms; released");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("kept trying for the wait")
                .isGreaterThanOrEqualTo(1500);
        await().atMost(2, TimeUnit.SECONDS).until(() -> master.keys("*{*").isEmpty());

        nodes[1].resume();
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as("acknowledged again once the replica is back").isTrue();
        lock.unlock();
    }

    @Test
    void unacknowledgedRenewalsDoNotKeepAHold() throws Exception {
        RedisServer[] nodes = masterAndReplica();
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(nodes[0].uri()).replicaAcks(1, Duration.ofMillis(300))).defaultLease(Duration.ofMillis(1500))
                .commandTimeout(Duration.ofMillis(400)).listener(lost::complete)
                .build());
        DistributedLock lock = client.getLock("renewed");
        lock.lock();
        nodes[1].pause();
        // renewals still reach the master (its key stays), but unacknowledged they do not extend the validity
        LockLostException loss = lost.get(5, TimeUnit.SECONDS);
        assertThat(loss.lockName()).isEqualTo("renewed");
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        nodes[1].resume();
    }

    @Test
    void aSentinelFailoverKeepsAnAcknowledgedLockHeld() throws Exception {
        RedisSentinelGroup group = track(RedisSentinelGroup.start("acks"));
        LockClient holder = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri()).replicaAcks(2, Duration.ofMillis(400)))
                .commandTimeout(Duration.ofMillis(500)).build());
        LockClient rival = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri()))
                .commandTimeout(Duration.ofMillis(500)).build());
        DistributedLock lock = holder.getLock("survives");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(60))).isTrue();
        long token = lock.fencingToken();

        // no WAIT of the test's own: the acquire returned only once both replicas had the grant
        group.master().kill();
        RedisServer promoted = group.awaitFailover(FAILOVER_BOUND);
        assertThat(promoted.command("HGET", "dlock:{survives}", "t")).isEqualTo(Long.toString(token));
        assertThat((Long) promoted.command("PTTL", "dlock:{survives}")).isPositive();

        DistributedLock rivalLock = rival.getLock("survives");
        long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
        boolean reachedNewMaster = false;
        while (!reachedNewMaster && System.nanoTime() < deadline) {
            try {
                assertThat(rivalLock.tryLock()).as("a rival acquires while the first hold's lease is valid").isFalse();
                reachedNewMaster = true;
            } catch (LockBackendException notYet) {
                // the rival has not found the new master yet
            }
        }
        assertThat(reachedNewMaster).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(rivalLock.tryLock()).isTrue();
        rivalLock.unlock();
    }
}
