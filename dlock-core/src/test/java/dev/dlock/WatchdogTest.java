package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WatchdogTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void explicitLeaseIsNeverRenewed() throws Exception {
        DistributedLock lock = servers.newClient(LEASE).getLock("explicit");
        lock.lock(Duration.ofMillis(400));
        DistributedLock rival = servers.newClient(LEASE).getLock("explicit");
        assertThat(rival.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        rival.unlock();
    }

    @Test
    void noKeyRemainsOrReappearsAfterManyThreadsLockAndUnlock() throws Exception {
        LockClient client = servers.newClient(LEASE);
        LockClient other = servers.newClient(LEASE);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<Future<Integer>> loops = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            LockClient mine = t % 2 == 0 ? client : other;
            String name = "churn-" + (t % 3);
            loops.add(pool.submit(() -> {
                int rounds = 0;
                DistributedLock lock = mine.getLock(name);
                while (System.nanoTime() < end) {
                    lock.lock();
                    try {
                        lock.unlock();
                    } catch (LockLostException e) {
                        // a thread starved of CPU past its 1 s lease on a loaded machine: legitimate,
                        // and exactly the case whose leftovers this test looks for
                    }
                    rounds++;
                }
                return rounds;
            }));
        }
        int total = 0;
        for (Future<Integer> loop : loops) {
            total += loop.get();
        }
        pool.shutdown();
        assertThat(total).isPositive();
        assertThat(servers.server().keys("*{*")).isEmpty();
        // a late renewal must not bring a key back: watch for three leases
        long watchUntil = System.nanoTime() + 3 * LEASE.toNanos();
        while (System.nanoTime() < watchUntil) {
            assertThat(servers.server().keys("*{*")).isEmpty();
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
