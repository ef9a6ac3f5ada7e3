package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import dev.dlock.internal.memory.MemoryStores;
import dev.dlock.processes.FairWaiterWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the fair lock adds to the contract: request order, waiters that die or give up, the handoff. */
class FairLockTest {

    private static final Logger LOG = LoggerFactory.getLogger(FairLockTest.class);

    // a fixed node timeout: the default (a tenth of a short test lease) is too tight on a busy machine
    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(5).withRedlockNodeTimeout(Duration.ofMillis(250)).withInMemory();

    private static LockClient client(Topology topology, Duration waiterTimeout) {
        return servers.newClient(topology, builder -> builder.waiterTimeout(waiterTimeout).commandTimeout(Duration.ofMillis(500)));
    }

    private static LockClient client() {
        return client(Topology.ONE_REDIS, LockClient.DEFAULT_WAITER_TIMEOUT);
    }

    private static long queued(RedisServer server, String name) {
        return (Long) server.command("ZCARD", "dlock:{" + name + "}:queue");
    }

    private static void awaitQueued(List<RedisServer> nodes, String name, long count) {
        // a minute: worker JVMs can take that long to start and queue on a loaded machine
        await().atMost(Duration.ofMinutes(1)).until(() -> nodes.stream().allMatch(server -> queued(server, name) == count));
    }

    /** Whether {@code count} waiters are queued for {@code name} on every node (or in memory). */
    private static boolean queuedEverywhere(Topology topology, String name, long count) {
        return topology == Topology.IN_MEMORY ? MemoryStores.queued("dlock:{" + name + "}") == count
                : servers.servers(topology).stream().allMatch(server -> queued(server, name) == count);
    }

    private static void awaitQueued(Topology topology, String name, long count) {
        await().atMost(Duration.ofSeconds(20)).until(() -> queuedEverywhere(topology, name, count));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY"})
    void twentyWaitersAcrossFourClientsGetTheLockInTheOrderTheyAsked(Topology topology) throws Exception {
        List<RedisServer> nodes = servers.servers(topology);
        DistributedLock holder = client(topology, LockClient.DEFAULT_WAITER_TIMEOUT).getFairLock("fifo");
        List<LockClient> waiterClients = IntStream.range(0, 4)
                .mapToObj(i -> client(topology, LockClient.DEFAULT_WAITER_TIMEOUT)).toList();
        holder.lock();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int id = i;
                DistributedLock lock = waiterClients.get(i % 4).getFairLock("fifo");
                done.add(pool.submit(() -> {
                    lock.lock();
                    try {
                        order.add(id);
                    } finally {
                        lock.unlock();
                    }
                    return null;
                }));
                // the next waiter asks only once this one is queued (on every node)
                awaitQueued(topology, "fifo", i + 1);
            }
            holder.unlock();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(order).containsExactlyElementsOf(IntStream.range(0, 20).boxed().toList());
        // every waiter has held and released the lock and left every node's queue: nothing is left
        servers.assertNothingLeft(topology);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            for (RedisServer server : nodes) {
                assertThat(keysLeft(server)).as("keys left on %s", server.uri()).isEmpty();
            }
        });
    }

    /** The lock keys on the server with their type, time to live and content, for failure messages. */
    private static List<String> keysLeft(RedisServer server) {
        return server.keys("dlock:{*").stream().map(key -> {
            Object type = server.command("TYPE", key);
            Object content = "zset".equals(type) ? server.command("ZRANGE", key, "0", "-1", "WITHSCORES")
                    : "hash".equals(type) ? server.command("HGETALL", key) : "";
            return key + " (" + type + ", pttl " + server.command("PTTL", key) + " ms) " + content;
        }).toList();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK"})
    void waitersKilledWhileQueuedHoldUpTheNextLiveWaiterOnlyForTheWaiterTimeout(Topology topology) throws Exception {
        Duration waiterTimeout = Duration.ofSeconds(1);
        // the dead waiters asked for a 5-minute lease: the queue must not wait for that
        long deadWaitersLeaseMs = TimeUnit.MINUTES.toMillis(5);
        List<RedisServer> nodes = servers.servers(topology);
        String lockUris = String.join(",", servers.uris(topology));
        DistributedLock holder = client(topology, waiterTimeout).getFairLock("crash-queue");
        holder.lock();
        List<JavaProcess> doomed = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            doomed.add(servers.track(JavaProcesses.start(FairWaiterWorker.class, List.of(lockUris, "crash-queue",
                    Long.toString(waiterTimeout.toMillis()), Long.toString(deadWaitersLeaseMs)))));
        }
        awaitQueued(nodes, "crash-queue", 2);
        DistributedLock live = client(topology, waiterTimeout).getFairLock("crash-queue");
        CompletableFuture<Long> liveGotItAt = CompletableFuture.supplyAsync(() -> {
            live.lock();
            long at = System.nanoTime();
            live.unlock();
            return at;
        });
        awaitQueued(nodes, "crash-queue", 3);

        doomed.forEach(JavaProcess::kill);
        long killedAt = System.nanoTime();
        holder.unlock();
        // the release hands the lock to the first queued waiter, dead or not: it cannot know yet
        for (RedisServer server : nodes) {
            LOG.info("after the release the lock on {} is {}", server.uri(), server.command("HGET", "dlock:{crash-queue}", "o"));
        }

        long waitedMs = TimeUnit.NANOSECONDS.toMillis(liveGotItAt.get(30, TimeUnit.SECONDS) - killedAt);
        LOG.info("{}: live waiter got the lock {} ms after two queued waiters were killed (waiter timeout {} ms)",
                topology, waitedMs, waiterTimeout.toMillis());
        // about the waiter timeout, far from the dead waiters' 5-minute leases (the margin is for a loaded machine)
        assertThat(waitedMs).isLessThan(waiterTimeout.toMillis() + 4000);
        for (JavaProcess process : doomed) {
            assertThat(process.log()).contains("WAITING").doesNotContain("HOLDING");
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            for (RedisServer server : nodes) {
                assertThat(keysLeft(server)).as("keys left on %s", server.uri()).isEmpty();
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY"})
    void waiterThatGivesUpHasLeftTheQueueWhenTheCallReturns(Topology topology) throws Exception {
        List<RedisServer> nodes = servers.servers(topology);
        DistributedLock holder = client(topology, LockClient.DEFAULT_WAITER_TIMEOUT).getFairLock("give-up");
        LockClient waiters = client(topology, LockClient.DEFAULT_WAITER_TIMEOUT);
        holder.lock();

        DistributedLock timedOut = waiters.getFairLock("give-up");
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return timedOut.tryLock(500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitQueued(topology, "give-up", 1);
        for (RedisServer server : nodes) {
            // while queued, the queue keys live no longer than the waiter timeout
            assertThat((Long) server.command("PTTL", "dlock:{give-up}:queue"))
                    .isPositive().isLessThanOrEqualTo(LockClient.DEFAULT_WAITER_TIMEOUT.toMillis());
        }
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isFalse();
        // at once, on every node (over Redlock not only on a majority): far sooner than the
        // waiter timeout (5 s) would have dropped the entries
        assertLeftEverywhere(topology, "give-up");

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread interrupted = new Thread(() -> {
            try {
                waiters.getFairLock("give-up").lockInterruptibly();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        interrupted.start();
        awaitQueued(topology, "give-up", 1);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertLeftEverywhere(topology, "give-up");

        CompletableFuture<LockHandle> cancelled = waiters.getFairLock("give-up").acquireAsync();
        awaitQueued(topology, "give-up", 1);
        cancelled.cancel(true);
        // well before the waiter timeout (5 s) would drop it
        await().atMost(Duration.ofSeconds(1)).until(() -> queuedEverywhere(topology, "give-up", 0));

        holder.unlock();
        if (topology == Topology.REDLOCK) {
            // the release returns once a majority has it: the others follow within a round trip
            await().atMost(Duration.ofSeconds(5)).until(() -> nodes.stream().allMatch(server -> server.keys("dlock:{*").isEmpty()));
        } else if (topology == Topology.ONE_REDIS) {
            assertThat(servers.server().keys("dlock:{*")).isEmpty();
        }
        servers.assertNothingLeft(topology);
    }

    /** The waiter's queue entry and its liveness entry are gone from every node; the holder's hash stays. */
    private static void assertLeftEverywhere(Topology topology, String name) {
        assertThat(queuedEverywhere(topology, name, 0)).as("%s has left the queue of %s", topology, name).isTrue();
        for (RedisServer server : servers.servers(topology)) {
            assertThat(queued(server, name)).as("queued on %s", server.uri()).isZero();
            assertThat((Long) server.command("HLEN", "dlock:{" + name + "}:waiters")).as("waiters on %s", server.uri()).isZero();
            assertThat(server.keys("dlock:{*")).as("keys on %s", server.uri()).containsExactly("dlock:{" + name + "}");
        }
    }

    @Test
    void tryLockNeverOvertakesAQueuedWaiterAndADeadOneHoldsUpOnlyUntilItsDeadline() throws Exception {
        RedisServer server = servers.server();
        // a waiter whose process died just after it asked: queued, deadline 1.5 s ahead, 1-minute lease
        List<?> time = (List<?>) server.command("TIME");
        long nowMs = Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
        server.command("ZADD", "dlock:{ghost}:queue", "1", "ghost-waiter");
        server.command("HSET", "dlock:{ghost}:waiters", "ghost-waiter", (nowMs + 1500) + ":60000:ghost");
        server.command("PEXPIRE", "dlock:{ghost}:queue", "1500");
        server.command("PEXPIRE", "dlock:{ghost}:waiters", "1500");

        DistributedLock lock = client().getFairLock("ghost");
        assertThat(lock.tryLock()).isFalse();
        long start = System.nanoTime();
        assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waitedMs).isBetween(500L, 1500L + 1000L);
        lock.unlock();
        assertThat(server.keys("dlock:{*")).isEmpty();
    }

    @Test
    void waiterTimeoutIsCheckedAndItsDefaultFollowsALongCommandTimeout() {
        assertThatThrownBy(() -> LockClient.builder().waiterTimeout(Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.05S");
        assertThatThrownBy(() -> LockClient.builder().waiterTimeout(Duration.ofMinutes(11)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT11M");
        assertThatThrownBy(() -> LockClient.builder().waiterTimeout(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockClient.builder().waiterTimeout(Duration.ofSeconds(1)).waiterTimeout(Duration.ofSeconds(2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("waiterTimeout");
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(servers.server().uri()))
                .commandTimeout(Duration.ofSeconds(1)).waiterTimeout(Duration.ofMillis(1500)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1.5");
        // a client that never asked for a waiter timeout still builds with a long command timeout
        LockClient slow = servers.newClient(Topology.ONE_REDIS, builder -> builder.commandTimeout(Duration.ofSeconds(5)));
        assertThat(slow.getFairLock("slow").tryLock()).isTrue();
    }

    /**
     * A chain of handoffs between queued waiters. The fair release hands the lock over within its
     * script and wakes only the next waiter, so each handoff costs about two script calls (the
     * release and the next holder's claim); the reentrant lock wakes every waiter at every release,
     * and each of them tries again.
     */
    @Test
    void releaseHandsTheLockToTheNextWaiterAndWakesOnlyIt() throws Exception {
        int waiters = 10;
        Handoffs fair = handoffs(waiters, "fair-chain", LockClient::getFairLock);
        Handoffs plain = handoffs(waiters, "plain-chain", LockClient::getLock);
        LOG.info("{} handoffs: fair lock {} script calls, {} µs per handoff; reentrant lock {} script calls, {} µs per handoff",
                waiters, fair.scriptCalls, fair.micros / waiters, plain.scriptCalls, plain.micros / waiters);
        assertThat(fair.scriptCalls).isLessThanOrEqualTo(3L * waiters);
        // on one Redis the reentrant lock queues its waiters too, and the one a release names takes
        // the lock over without a claim: about one call per handoff, where the fair lock needs two
        assertThat(plain.scriptCalls).isLessThanOrEqualTo(fair.scriptCalls);
    }

    private record Handoffs(long scriptCalls, long micros) {
    }

    private Handoffs handoffs(int waiters, String name, BiFunction<LockClient, String, DistributedLock> lockOf)
            throws Exception {
        RedisServer server = servers.server();
        DistributedLock holder = lockOf.apply(client(), name);
        List<LockClient> waiterClients = List.of(client(), client());
        holder.lock();
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        try {
            List<Future<Long>> done = new ArrayList<>();
            long base = CommandStats.scriptCalls(server);
            for (int i = 0; i < waiters; i++) {
                DistributedLock lock = lockOf.apply(waiterClients.get(i % 2), name);
                done.add(pool.submit(() -> {
                    lock.lock();
                    long at = System.nanoTime();
                    lock.unlock();
                    return at;
                }));
                // the first waiter of each client tries, subscribes and tries again before it waits;
                // later ones find the channel subscribed and wait after one try
                long waiting = i < 2 ? 2L * (i + 1) : 4L + (i - 1);
                await().atMost(Duration.ofSeconds(10)).until(() -> CommandStats.scriptCalls(server) >= base + waiting);
            }
            long callsBefore = CommandStats.scriptCalls(server);
            long start = System.nanoTime();
            holder.unlock();
            long last = start;
            for (Future<Long> f : done) {
                last = Math.max(last, f.get(30, TimeUnit.SECONDS));
            }
            return new Handoffs(CommandStats.scriptCalls(server) - callsBefore, TimeUnit.NANOSECONDS.toMicros(last - start));
        } finally {
            pool.shutdownNow();
        }
    }
}
