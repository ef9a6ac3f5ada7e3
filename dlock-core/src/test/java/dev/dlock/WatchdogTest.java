package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WatchdogTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void holdThreeTimesLongerThanTheLeaseStaysHeld() throws Exception {
        DistributedLock lock = clients.client(redis.server(), LEASE).getLock("long-hold");
        DistributedLock rival = clients.client(redis.server(), LEASE).getLock("long-hold");
        lock.lock();
        long token = lock.fencingToken();
        long end = System.nanoTime() + 3 * LEASE.toNanos();
        while (System.nanoTime() < end) {
            // each probe waits a fifth of the lease: the hold must survive every one of them
            assertThat(rival.tryLock(LEASE.toMillis() / 5, TimeUnit.MILLISECONDS)).isFalse();
        }
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.info().fencingToken()).isEqualTo(token);
        lock.unlock();
        assertThat(redis.server().keys("*")).isEmpty();
    }

    @Test
    void explicitLeaseIsNeverRenewed() throws Exception {
        DistributedLock lock = clients.client(redis.server(), LEASE).getLock("explicit");
        lock.lock(Duration.ofMillis(400));
        DistributedLock rival = clients.client(redis.server(), LEASE).getLock("explicit");
        assertThat(rival.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        rival.unlock();
    }

    @Test
    void noKeyRemainsOrReappearsAfterManyThreadsLockAndUnlock() throws Exception {
        LockClient client = clients.client(redis.server(), LEASE);
        LockClient other = clients.client(redis.server(), LEASE);
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
        assertThat(redis.server().keys("*")).isEmpty();
        // a late renewal must not bring a key back: watch for three leases
        long watchUntil = System.nanoTime() + 3 * LEASE.toNanos();
        while (System.nanoTime() < watchUntil) {
            assertThat(redis.server().keys("*")).isEmpty();
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
