package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisSentinelGroup;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** dlock on a Sentinel-managed master with two replicas, through Lettuce's redis-sentinel:// URI. */
class SentinelTest {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    final OpenResources resources = new OpenResources();
    private RedisSentinelGroup group;

    private <T extends AutoCloseable> T track(T resource) {
        return resources.track(resource);
    }

    @Test
    void everyLockKindWorksThroughTheSentinelUri() throws Exception {
        group = track(RedisSentinelGroup.start("kinds"));
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri())).build());
        // Lettuce's own form of the same URL, the master named in the fragment
        String lettuceForm = group.sentinelUri().replace("?sentinelMasterId=", "#");
        assertThat(lettuceForm).contains("#kinds").doesNotContain("?");
        LockClient other = track(LockClient.builder().store(RedisStore.standalone(lettuceForm)).build());
        RedisServer master = group.master();

        DistributedLock plain = client.getLock("plain");
        DistributedLock fair = client.getFairLock("fair");
        DistributedReadWriteLock rw = client.getReadWriteLock("rw");
        List<DistributedLock> rivals = List.of(other.getLock("plain"), other.getFairLock("fair"),
                other.getReadWriteLock("rw").readLock());
        List<DistributedLock> locks = List.of(plain, fair, rw.writeLock());
        for (int i = 0; i < locks.size(); i++) {
            DistributedLock lock = locks.get(i);
            assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).as(lock.name()).isTrue();
            assertThat(master.command("EXISTS", "dlock:{" + lock.name() + "}")).as(lock.name()).isEqualTo(1L);
            assertThat(rivals.get(i).tryLock()).as("rival of " + lock.name()).isFalse();
            lock.unlock();
            assertThat(rivals.get(i).tryLock()).as("rival of " + lock.name() + " after unlock").isTrue();
            rivals.get(i).unlock();
        }

        assertThat(rw.readLock().tryLock()).isTrue();
        assertThat(other.getReadWriteLock("rw").readLock().tryLock()).isTrue();
        LockClient third = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri())).build());
        assertThat(third.getReadWriteLock("rw").writeLock().tryLock()).isFalse();
        other.getReadWriteLock("rw").readLock().unlock();
        rw.readLock().unlock();
        assertThat(master.keys("dlock:{*")).isEmpty();
        assertThat(client.address()).isEqualTo(group.sentinelUri());
    }

    @Test
    void locksCarryOnAfterTheMasterIsKilledAndAReplicaPromoted() throws Exception {
        group = track(RedisSentinelGroup.start("failover"));
        String uri = group.sentinelUri();
        Map<String, LockLostException> lost = new ConcurrentHashMap<>();
        // The held lock's lease (60 s) and the waiter's refresh (a third of 2 min) are far beyond the 15 s
        // the waiter gets after the release: only the released message can wake it in time.
        LockClient holder = track(LockClient.builder().store(RedisStore.standalone(uri)).defaultLease(Duration.ofSeconds(60))
                .listener(e -> lost.put(e.lockName(), e)).build());
        LockClient waiterClient = track(LockClient.builder().store(RedisStore.standalone(uri))
                .waiterTimeout(Duration.ofMinutes(2)).build());
        // Renewed every lease/3: a lease this long outlives the failover, so renewals must reach the new master.
        LockClient renewing = track(LockClient.builder().store(RedisStore.standalone(uri))
                .defaultLease(Duration.ofSeconds(6)).commandTimeout(Duration.ofMillis(500))
                .listener(e -> lost.put(e.lockName(), e)).build());
        // A 1 s lease ends during the failover: its hold must be reported lost, not kept.
        LockClient shortLived = track(LockClient.builder().store(RedisStore.standalone(uri))
                .defaultLease(Duration.ofSeconds(1)).commandTimeout(Duration.ofMillis(200))
                .listener(e -> lost.put(e.lockName(), e)).build());
        LockClient prober = track(LockClient.builder().store(RedisStore.standalone(uri)).commandTimeout(Duration.ofMillis(200))
                .defaultLease(Duration.ofSeconds(2)).build());

        DistributedLock held = holder.getLock("handoff");
        held.lock();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return waiterClient.getLock("handoff").tryLock(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        RedisServer oldMaster = group.master();
        await().atMost(5, TimeUnit.SECONDS).until(() ->
                oldMaster.command("PUBSUB", "NUMSUB", "dlock:{handoff}:released").toString().endsWith(", 1]"));
        DistributedLock renewed = renewing.getLock("renewed");
        renewed.lock();
        DistributedLock expiring = shortLived.getLock("expiring");
        expiring.lock();
        DistributedLock missing = renewing.getLock("missing");
        missing.lock();
        assertThat(oldMaster.command("WAIT", "2", "5000")).isEqualTo(2L);

        oldMaster.kill();
        long killedAt = System.nanoTime();
        RedisServer newMaster = group.awaitFailover(FAILOVER_BOUND);
        long promotedAt = System.nanoTime();
        AtomicLong attempts = new AtomicLong();
        await().atMost(FAILOVER_BOUND).pollInterval(Duration.ofMillis(10)).until(() -> {
            try {
                DistributedLock probe = prober.getLock("probe-" + attempts.incrementAndGet());
                if (probe.tryLock()) {
                    probe.unlock();
                    return true;
                }
                return false;
            } catch (LockBackendException notYet) {
                return false;
            }
        });
        long recoveredAt = System.nanoTime();
        System.out.printf("Sentinel failover: kill -> promotion seen %d ms, kill -> first acquire %d ms (%d attempts)%n",
                TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt),
                TimeUnit.NANOSECONDS.toMillis(recoveredAt - killedAt), attempts.get());

        // The waiter's subscription moved to the new master, and a release there wakes it.
        await().atMost(FAILOVER_BOUND).until(() ->
                newMaster.command("PUBSUB", "NUMSUB", "dlock:{handoff}:released").toString().endsWith(", 1]"));
        assertThat(waiter).isNotDone();
        held.unlock();
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();

        // Renewals reach the new master: the key outlives several leases and its PTTL keeps rising again.
        long lastPttl = (Long) newMaster.command("PTTL", "dlock:{renewed}");
        int refreshes = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(14);
        while (refreshes < 3 && System.nanoTime() < until) {
            long pttl = (Long) newMaster.command("PTTL", "dlock:{renewed}");
            assertThat(pttl).as("PTTL of the renewed lock on the new master").isPositive();
            if (pttl > lastPttl + 500) {
                refreshes++;
            }
            lastPttl = pttl;
            Thread.sleep(50);
        }
        assertThat(refreshes).as("renewals seen on the new master").isGreaterThanOrEqualTo(3);
        assertThat(renewed.isHeldByCurrentThread()).isTrue();
        assertThat(lost).doesNotContainKeys("renewed", "handoff");
        renewed.unlock();

        // A hold the new master lacks (as when the master died before replicating the acquire; simulated
        // by deleting the key there) is reported lost by the next renewal.
        newMaster.command("DEL", "dlock:{missing}");
        await().atMost(FAILOVER_BOUND).until(() -> lost.containsKey("missing"));
        assertThat(missing.isHeldByCurrentThread()).isFalse();

        // The 1 s hold ended on the new master while nothing could renew it: it is lost, never kept.
        await().atMost(FAILOVER_BOUND).until(() -> lost.containsKey("expiring"));
        assertThat(expiring.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void aStalledMasterIsLeftForThePromotedReplicaWithoutWaitingForItToComeBack() throws Exception {
        group = track(RedisSentinelGroup.start("stalled"));
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri()))
                .commandTimeout(Duration.ofMillis(500)).defaultLease(Duration.ofSeconds(10))
                .listener(lost::complete).build());
        DistributedLock before = client.getLock("before");
        before.lock();
        RedisServer oldMaster = group.master();
        assertThat(oldMaster.command("WAIT", "2", "5000")).isEqualTo(2L);

        // A stopped master keeps its connections open: nothing makes Lettuce reconnect but the switch.
        oldMaster.pause();
        long pausedAt = System.nanoTime();
        RedisServer newMaster = group.awaitFailover(FAILOVER_BOUND);
        long promotedAt = System.nanoTime();
        AtomicLong attempts = new AtomicLong();
        assertThat(acquiresWithin(client, FAILOVER_BOUND, attempts)).as("acquired while the old master is stopped").isTrue();
        System.out.printf("Sentinel pause: SIGSTOP -> promotion seen %d ms, SIGSTOP -> first acquire %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(promotedAt - pausedAt),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt));
        assertThat(newMaster.keys("dlock:{probe-*")).hasSize(1);
        assertThat(newMaster.command("EXISTS", "dlock:{before}")).isEqualTo(1L);
        assertThat(lost).isNotDone();
        before.unlock();

        oldMaster.resume();
        await().atMost(FAILOVER_BOUND).until(() -> RedisSentinelGroup.role(oldMaster).equals("slave"));
        DistributedLock after = client.getLock("after");
        assertThat(after.tryLock()).isTrue();
        assertThat(newMaster.command("EXISTS", "dlock:{after}")).isEqualTo(1L);
        after.unlock();
    }

    @Test
    void aWaitBoundsTheCallWhileTheMasterIsStopped() throws Exception {
        group = track(RedisSentinelGroup.start("bounded"));
        // a command timeout the call would have waited for, longer than the bound checked
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(group.sentinelUri()))
                .commandTimeout(Duration.ofSeconds(5)).build());
        DistributedLock lock = client.getLock("bounded");
        RedisServer master = group.master();
        master.pause();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS)).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("acquire outcome unknown for lock 'bounded'");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the wait, the overrun and 1.5 s for a loaded machine")
                    .isLessThan(Duration.ofMillis(300).plus(LockClient.WAIT_OVERRUN).plusMillis(1500));
        } finally {
            master.resume();
        }
    }

    private static boolean acquiresWithin(LockClient client, Duration bound, AtomicLong attempts) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (client.getLock("probe-" + attempts.incrementAndGet()).tryLock()) {
                    return true;
                }
            } catch (LockBackendException notYet) {
                // timed out or refused: the client has not found the new master yet
            }
        }
        return false;
    }
}
