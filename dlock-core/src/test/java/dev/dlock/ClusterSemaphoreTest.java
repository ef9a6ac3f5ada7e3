package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Semaphores and multi-locks on a Redis Cluster of three masters: a semaphore's keys share its
 * name's slot (its waiters are woken by sharded pub/sub); a multi-lock's names may lie in different
 * slots, on different masters, since each name is a lock of its own.
 */
class ClusterSemaphoreTest {

    private static RedisClusterGroup cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterGroup.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static LockClient client() {
        return LockClient.builder().clusterNodes(cluster.uris().toArray(String[]::new)).build();
    }

    private static void assertNothingLeft() {
        for (RedisServer master : cluster.masters()) {
            await().atMost(10, TimeUnit.SECONDS).until(() -> master.keys("dlock:{*").isEmpty());
        }
    }

    @Test
    void aSemaphoreBoundsItsHoldersAndWakesItsWaitersOnTheCluster() throws Exception {
        try (LockClient a = client(); LockClient b = client()) {
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    DistributedSemaphore semaphore = (t % 2 == 0 ? a : b).getSemaphore("cluster-pool", 2);
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < 5; i++) {
                            try (LockHandle permit = semaphore.acquire()) {
                                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                LockSupport.parkNanos(2_000_000);
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(2, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(most.get()).isBetween(1, 2);
            assertThat(a.getSemaphore("cluster-pool", 2).info().holds()).isEmpty();
        }
        assertNothingLeft();
    }

    @Test
    void aMultiLockOverNamesInDifferentSlotsIsAllOrNothing() throws Exception {
        String[] names = {"alpha", "bravo", "charlie", "delta"};
        assertThat(List.of(names).stream().map(name -> cluster.masterOf("dlock:{" + name + "}")).distinct().count())
                .as("names on more than one master").isGreaterThan(1);
        try (LockClient a = client(); LockClient b = client()) {
            DistributedLock held = b.getLock("charlie");
            held.lock();
            DistributedLock multi = a.getMultiLock(names);
            assertThat(multi.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            for (String name : names) {
                assertThat(a.getLock(name).isLocked()).as(name).isEqualTo(name.equals("charlie"));
            }
            held.unlock();
            assertThat(multi.tryLock(10, TimeUnit.SECONDS)).isTrue();
            assertThat(b.getMultiLock("delta", "alpha").tryLock()).isFalse();
            multi.unlock();
        }
        assertNothingLeft();
    }
}
