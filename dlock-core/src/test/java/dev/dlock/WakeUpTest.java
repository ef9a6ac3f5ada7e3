package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiters are woken by the release message, not by the holder's lease running out: every hold
 * here has a 30 s lease, so a waiter that acquires within a second was woken by pub/sub.
 */
class WakeUpTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void waiterAcquiresRightAfterTheReleaseNotAtLeaseExpiry() throws Exception {
        DistributedLock holder = clients.client(redis.server()).getLock("wake");
        DistributedLock waiter = clients.client(redis.server()).getLock("wake");
        holder.lock(LONG_LEASE);
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            try {
                assertThat(waiter.tryLock(Duration.ofSeconds(20), LONG_LEASE)).isTrue();
                long at = System.nanoTime();
                waiter.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        waiting.await();
        // let the waiter reach its wait: it shows up as a subscriber of the lock's channel
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                redis.server().command("PUBSUB", "NUMSUB", "dlock:{wake}:released").toString().endsWith(", 1]"));
        holder.unlock();
        long releasedAt = System.nanoTime();
        long wokenAfterMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(25, TimeUnit.SECONDS) - releasedAt);
        assertThat(wokenAfterMs).isLessThan(1000);
    }

    @Test
    void releaseDuringTheWaitersSubscribeIsNotMissed() throws Exception {
        LockClient holderClient = clients.client(redis.server());
        LockClient waiterClient = clients.client(redis.server());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 100; round++) {
                String name = "race-" + round;
                DistributedLock holder = holderClient.getLock(name);
                holder.lock(LONG_LEASE);
                Future<Boolean> waiter = pool.submit(() -> {
                    DistributedLock lock = waiterClient.getLock(name);
                    boolean got = lock.tryLock(Duration.ofSeconds(20), LONG_LEASE);
                    if (got) {
                        lock.unlock();
                    }
                    return got;
                });
                // release at varying moments around the waiter's first attempt and its SUBSCRIBE
                LockSupport.parkNanos((round % 10) * 100_000L);
                long releasedAt = System.nanoTime();
                holder.unlock();
                assertThat(waiter.get(25, TimeUnit.SECONDS)).isTrue();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt))
                        .as("round %d", round).isLessThan(2000);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void fiftyWaitersAllGetTheLockInTurn() throws Exception {
        int waiters = 50;
        List<LockClient> waiterClients = List.of(clients.client(redis.server()), clients.client(redis.server()),
                clients.client(redis.server()));
        DistributedLock holder = clients.client(redis.server()).getLock("queue");
        holder.lock();
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch started = new CountDownLatch(waiters);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int id = i;
            DistributedLock lock = waiterClients.get(i % waiterClients.size()).getLock("queue");
            done.add(pool.submit(() -> {
                started.countDown();
                lock.lock();
                try {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    order.add(id);
                    inside.decrementAndGet();
                } finally {
                    lock.unlock();
                }
                return null;
            }));
        }
        started.await();
        holder.unlock();
        for (Future<?> f : done) {
            // 50 hand-overs by pub/sub; at lease expiry (30 s each) this would take 25 minutes
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(overlaps.get()).isZero();
        assertThat(order).hasSize(waiters).doesNotHaveDuplicates();
        assertThat(redis.server().keys("*")).isEmpty();
    }
}
