package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Semaphores and multi-locks on a Redis Cluster of three masters: a semaphore's keys share its
 * name's slot (its waiters are woken by sharded pub/sub); a multi-lock's names may lie in different
 * slots, on different masters, since each name is a lock of its own.
 */
class ClusterSemaphoreTest {

    @RegisterExtension
    static final LockCluster cluster = new LockCluster();

    private static LockClient client() {
        return cluster.clientBuilder().build();
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
        cluster.awaitNoLockKeys();
    }

    @Test
    void aMultiLockOverNamesInDifferentSlotsIsAllOrNothing() throws Exception {
        String[] names = {"alpha", "bravo", "charlie", "delta"};
        assertThat(List.of(names).stream().map(name -> cluster.group().masterOf("dlock:{" + name + "}")).distinct().count())
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
        cluster.awaitNoLockKeys();
    }
}
