package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Waiters are woken by the release message, not by the holder's lease running out: every hold
 * here has a 30 s lease, so a waiter that acquires within a tenth of it (3 s) was woken by pub/sub
 * or by its own attempt, not by the lease ending. That bound is for correctness on a loaded
 * machine; the measured latencies are logged.
 */
class WakeUpTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    /**
     * 20 rounds of: holder takes the lock with a 30 s lease, a waiter (another client) is seen
     * waiting, the holder releases. The bound checked is a correctness bound, not a speed target: a
     * waiter that missed the release message would get the lock only when the lease ends, 30 s
     * later. The latencies themselves are logged (median and max), not asserted.
     */
    @Test
    void waiterAcquiresRightAfterTheReleaseNotAtLeaseExpiry() throws Exception {
        int rounds = 20;
        LockClient holderClient = servers.newClient();
        LockClient waiterClient = servers.newClient();
        List<Long> latenciesNanos = new ArrayList<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < rounds; round++) {
                String name = "wake-" + round;
                DistributedLock holder = holderClient.getLock(name);
                long callsBefore = CommandStats.scriptCalls(servers.server());
                holder.lock(LONG_LEASE);
                Future<Long> acquiredAt = pool.submit(() -> {
                    DistributedLock lock = waiterClient.getLock(name);
                    assertThat(lock.tryLock(Duration.ofSeconds(20), LONG_LEASE)).isTrue();
                    long at = System.nanoTime();
                    lock.unlock();
                    return at;
                });
                // the waiter is in its wait once it has subscribed to the lock's channel and made
                // its attempt after the subscription: the holder's grant + the waiter's two attempts
                await().atMost(Duration.ofSeconds(10)).until(() ->
                        subscribers(servers.server(), name) == 1 && CommandStats.scriptCalls(servers.server()) - callsBefore >= 3);
                assertThat(acquiredAt).isNotDone();
                long releasedAt = System.nanoTime();
                holder.unlock();
                long latency = acquiredAt.get(25, TimeUnit.SECONDS) - releasedAt;
                assertThat(Duration.ofNanos(latency)).as("round %d", round).isLessThan(LONG_LEASE.dividedBy(10));
                latenciesNanos.add(latency);
            }
        } finally {
            pool.shutdownNow();
        }
        Collections.sort(latenciesNanos);
        LoggerFactory.getLogger(WakeUpTest.class).info(
                "wake-up latency (holder's unlock() called -> waiter's tryLock returned true), {} rounds: "
                        + "median {} ms, max {} ms, min {} ms",
                rounds, millis(latenciesNanos.get(rounds / 2)), millis(latenciesNanos.get(rounds - 1)),
                millis(latenciesNanos.get(0)));
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    /**
     * The release lands after the waiter's first attempt was refused and before the server has
     * its SUBSCRIBE: the release message goes to nobody, and only the attempt the waiter makes once
     * subscribed can find the lock free. The waiter's client talks to Redis through a relay that
     * keeps the SUBSCRIBE back until the release is done, so every round hits that window;
     * releasing "at the right moment" by timing would hit it only by luck and could not show it
     * did. A SUBSCRIBE is sent only after a refused attempt, and the holder holds a 30 s lease, so
     * seeing it at the relay proves the refusal. A waiter that relied on the message alone would
     * wait out the 30 s lease.
     */
    @Test
    void releaseWhileTheWaitersSubscribeIsInFlightIsNotMissed() throws Exception {
        LockClient holderClient = servers.newClient();
        SubscribeGate gate = servers.track(new SubscribeGate(servers.server()));
        // the held SUBSCRIBE must not time out on a loaded machine: the longest command timeout
        // the 30 s default lease allows
        LockClient waiterClient = servers.track(LockClient.builder().store(RedisStore.standalone(gate.uri()))
                .commandTimeout(Duration.ofSeconds(9)).build());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 5; round++) {
                String name = "race-" + round;
                DistributedLock holder = holderClient.getLock(name);
                holder.lock(LONG_LEASE);
                SubscribeGate.Held subscribe = gate.holdNextSubscribe();
                Future<Boolean> waiter = pool.submit(() -> {
                    DistributedLock lock = waiterClient.getLock(name);
                    boolean got = lock.tryLock(Duration.ofSeconds(20), LONG_LEASE);
                    if (got) {
                        lock.unlock();
                    }
                    return got;
                });
                subscribe.arrived().get(10, TimeUnit.SECONDS);
                assertThat(subscribers(servers.server(), name)).as("the server has not seen the SUBSCRIBE").isZero();

                holder.unlock();
                assertThat(waiter).isNotDone();
                long releasedAt = System.nanoTime();
                subscribe.let();

                assertThat(waiter.get(25, TimeUnit.SECONDS)).as("round %d", round).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("round %d: not at lease expiry", round)
                        .isLessThan(LONG_LEASE.dividedBy(10));
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    @Test
    void fiftyWaitersAllGetTheLockInTurn() throws Exception {
        int waiters = 50;
        List<LockClient> waiterClients = List.of(servers.newClient(), servers.newClient(),
                servers.newClient());
        DistributedLock holder = servers.newClient().getLock("queue");
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
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    private static long subscribers(RedisServer server, String lockName) {
        List<?> reply = (List<?>) server.command("PUBSUB", "NUMSUB", "dlock:{" + lockName + "}:released");
        return (Long) reply.get(1);
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }
}
