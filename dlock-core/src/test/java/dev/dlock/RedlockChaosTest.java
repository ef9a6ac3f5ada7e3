package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockServers.Topology;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several Redlock clients take a lock 1,000 times while servers are killed, paused and restarted
 * at random, never more than two down at once (counting a server that is back until clients have
 * reconnected), and a killed server restarted (empty) only after more than a lease — the restart
 * rule docs/redlock.md gives operators.
 */
class RedlockChaosTest {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockChaosTest.class);
    private static final Duration LEASE = Duration.ofSeconds(1);

    @RegisterExtension
    // the one Redis keeps the shared counter, out of the chaos
    static final LockServers servers = LockServers.singleRedisAndRedlock(5);

    @Test
    void neverTwoHoldersAndTokensIncreaseWhileServersFail() throws Exception {
        int acquisitions = 1000;
        // the acquisitions go on until the servers have failed several times, however fast they are
        int minimumDisruptions = 6;
        AtomicInteger disruptionsSoFar = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        UnsafeCounter counter = servers.counter("chaos-counter");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();

        ExecutorService pool = Executors.newFixedThreadPool(5);
        Future<Integer> chaos = pool.submit(() -> disrupt(stop, disruptionsSoFar));
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            LockClient client = servers.newClient(Topology.REDLOCK, builder -> builder
                    .defaultLease(LEASE)
                    .commandTimeout(Duration.ofMillis(250)));
            workers.add(pool.submit(() -> {
                DistributedLock lock = client.getLock("chaos");
                while (done.get() < acquisitions || disruptionsSoFar.get() < minimumDisruptions) {
                    try {
                        if (!lock.tryLock(5, TimeUnit.SECONDS)) {
                            continue;
                        }
                    } catch (LockBackendException e) {
                        // no quorum reachable right now: back off as an application would
                        failures.incrementAndGet();
                        TimeUnit.MILLISECONDS.sleep(50);
                        continue;
                    }
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        tokens.add(lock.fencingToken());
                        counter.incrementUnsafely();
                        done.incrementAndGet();
                        inside.decrementAndGet();
                    } finally {
                        try {
                            lock.unlock();
                        } catch (LockBackendException | LockLostException e) {
                            failures.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(5, TimeUnit.MINUTES);
        }
        stop.set(true);
        int disruptions = chaos.get(1, TimeUnit.MINUTES);
        pool.shutdown();
        LOG.info("chaos: {} acquisitions, {} disruptions, {} failed calls", done.get(), disruptions, failures.get());

        assertThat(disruptions).isGreaterThanOrEqualTo(minimumDisruptions);
        assertThat(done.get()).isGreaterThanOrEqualTo(acquisitions);
        assertThat(overlaps.get()).isZero();
        assertThat(counter.value()).isEqualTo(done.get());
        assertThat(tokens).hasSize(done.get());
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    /**
     * Kills or pauses nodes at random, at most two at a time. A killed node comes back empty (no
     * persistence) only after more than a lease, as Redlock requires of restarts: an empty node
     * that rejoins at once could hand out a lock that is still held on the other nodes.
     */
    private int disrupt(AtomicBoolean stop, AtomicInteger disruptionsSoFar) throws InterruptedException {
        Random random = new Random(42);
        long[] downSince = new long[5];
        long[] backSince = new long[5];
        List<RedisServer> down = new ArrayList<>();
        long minimumDowntime = LEASE.toNanos() * 3 / 2;
        // clients reconnect within about a second (LockClient's reconnect delay is at most 1 s): until
        // then a server that is back still counts as down for them
        long reconnectGrace = TimeUnit.MILLISECONDS.toNanos(1200);
        int disruptions = 0;
        while (!stop.get()) {
            long now = System.nanoTime();
            int reconnecting = 0;
            for (int i = 0; i < 5; i++) {
                if (backSince[i] != 0 && now - backSince[i] < reconnectGrace) {
                    reconnecting++;
                }
            }
            if (!down.isEmpty() && (down.size() + reconnecting >= 2 || random.nextBoolean())) {
                RedisServer back = down.get(0);
                int index = servers.servers(Topology.REDLOCK).indexOf(back);
                if (now - downSince[index] >= minimumDowntime) {
                    down.remove(0);
                    if (back.isPaused()) {
                        back.resume();
                    } else {
                        back.restart();
                    }
                    backSince[index] = System.nanoTime();
                }
            } else if (down.size() + reconnecting < 2) {
                int victim = random.nextInt(5);
                RedisServer server = servers.master(victim);
                if (!down.contains(server) && (backSince[victim] == 0 || now - backSince[victim] >= reconnectGrace)) {
                    if (random.nextBoolean()) {
                        server.kill();
                    } else {
                        server.pause();
                    }
                    downSince[victim] = System.nanoTime();
                    down.add(server);
                    disruptions++;
                    disruptionsSoFar.incrementAndGet();
                }
            }
            TimeUnit.MILLISECONDS.sleep(100 + random.nextInt(300));
        }
        for (RedisServer server : down) {
            if (server.isPaused()) {
                server.resume();
            } else {
                server.restart();
            }
        }
        return disruptions;
    }
}
