package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A release by a client with waiters of its own parked on the lock hands it to the first of them
 * in the release script (handoff.lua), unless a waiter of another client is queued ahead of them
 * ({@link ClientHandoffTest}), or, with none queued, waiters that are not queued are subscribed:
 * then it is released for everyone, as any release is.
 */
class LocalHandoffTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void releaseHandsTheLockToTheClientsOwnWaitersInTheOrderTheyParkedOneScriptCallEach() throws Exception {
        RedisServer server = servers.server();
        LockClient client = servers.newClient();
        DistributedLock lock = client.getLock("chain");
        int waiters = 8;
        lock.lock();
        long holderToken = lock.fencingToken();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        long base = CommandStats.scriptCalls(server);
        for (int i = 0; i < waiters; i++) {
            int id = i;
            Thread waiter = new Thread(() -> {
                lock.lock();
                try {
                    order.add(id);
                    tokens.add(lock.fencingToken());
                } finally {
                    lock.unlock();
                }
            }, "waiter-" + i);
            threads.add(waiter);
            waiter.start();
            if (i == 0) {
                // the first waiter asks Redis, subscribes and asks again
                await().atMost(Duration.ofSeconds(10)).until(() -> CommandStats.scriptCalls(server) >= base + 2);
            }
            // later ones see the lock held by this client and park without asking; a thread
            // blocks in lock() once its waiter is parked
            await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.WAITING
                    || waiter.getState() == Thread.State.TIMED_WAITING);
        }
        // besides, each new thread wrote its name into the client's record once (record_holder.lua)
        assertThat(CommandStats.scriptCalls(server)).isEqualTo(base + 2 + waiters);
        long callsBefore = CommandStats.scriptCalls(server);
        long publishesBefore = CommandStats.publishes(server);
        lock.unlock();
        for (Thread waiter : threads) {
            waiter.join(30_000);
            assertThat(waiter.isAlive()).isFalse();
        }
        // one handoff per waiter, then the last waiter's plain release; a race for the lock
        // among the waiters at every release would take several calls per release
        assertThat(CommandStats.scriptCalls(server) - callsBefore).isEqualTo(waiters + 1L);
        // only the last release is published: a handoff wakes nobody else
        assertThat(CommandStats.publishes(server) - publishesBefore).isEqualTo(1L);
        assertThat(order).containsExactlyElementsOf(java.util.stream.IntStream.range(0, waiters).boxed().toList());
        assertThat(tokens.get(0)).isGreaterThan(holderToken);
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.keys("dlock:{chain}*").isEmpty());
    }

    @Test
    void threadsOfOneClientTakingTurnsCostAboutOneScriptCallPerAcquisition() throws Exception {
        RedisServer server = servers.server();
        LockClient client = servers.newClient();
        int threads = 8;
        int rounds = 200;
        java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();
        long base = CommandStats.scriptCalls(server);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                DistributedLock lock = client.getLock("turns");
                for (int i = 0; i < rounds; i++) {
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join(60_000);
            assertThat(worker.isAlive()).isFalse();
        }
        assertThat(overlaps.get()).isZero();
        long acquisitions = (long) threads * rounds;
        // a thread that asks again right after handing the lock over parks without asking Redis
        // (the lock is known held here throughout the handoff); asking would add a refused try,
        // about two calls per acquisition
        long calls = CommandStats.scriptCalls(server) - base;
        assertThat(calls).isLessThan(acquisitions * 3 / 2);
    }

    @Test
    void theFirstQueuedWaiterIsServedFirstAndWaitersThatAreNotQueuedHearTheNextPlainRelease() throws Exception {
        RedisServer server = servers.server();
        DistributedLock lock = servers.newClient().getLock("shared");
        String channel = "dlock:{shared}:released";
        RedisClient raw = RedisClient.create(server.uri());
        servers.track(raw::shutdown);
        StatefulRedisPubSubConnection<String, String> otherClient = servers.track(raw.connectPubSub());
        LinkedBlockingQueue<String> published = new LinkedBlockingQueue<>();
        otherClient.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channelName, String message) {
                published.add(message);
            }
        });
        // another client waiting on the lock, as far as Redis can tell, but not queued
        otherClient.sync().subscribe(channel);

        lock.lock();
        long holderToken = lock.fencingToken();
        long base = CommandStats.scriptCalls(server);
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        servers.track(waiterThread::shutdownNow);
        Future<Long> ownWaiter = waiterThread.submit(() -> {
            lock.lock();
            try {
                return lock.fencingToken();
            } finally {
                lock.unlock();
            }
        });
        // tried (and queued), subscribed, tried again: parked, first in the queue
        await().atMost(Duration.ofSeconds(10)).until(() -> CommandStats.scriptCalls(server) >= base + 2);
        lock.unlock();

        long ownToken = ownWaiter.get(10, TimeUnit.SECONDS);
        assertThat(ownToken).isGreaterThan(holderToken);
        assertThat(published.poll(10, TimeUnit.SECONDS))
                .as("the handoff to the queued waiter published nothing; its release, with nobody queued, did")
                .isEqualTo(Long.toString(ownToken));
    }
}
