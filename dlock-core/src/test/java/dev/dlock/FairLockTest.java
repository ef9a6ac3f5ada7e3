package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.processes.FairWaiterWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the fair lock adds to the contract: request order, waiters that die or give up, the handoff. */
class FairLockTest {

    private static final Logger LOG = LoggerFactory.getLogger(FairLockTest.class);

    @RegisterExtension
    static final RedisServers single = RedisServers.standalone();

    @RegisterExtension
    static final RedisServers quorum = RedisServers.masters(5);

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    private LockClient client(boolean redlock, Duration waiterTimeout) {
        LockClient.Builder builder = redlock
                ? LockClient.builder().redlockNodes(quorum.uris().toArray(String[]::new)).redlockNodeTimeout(Duration.ofMillis(250))
                : LockClient.builder().redisUri(single.server().uri());
        return clients.track(builder.waiterTimeout(waiterTimeout).commandTimeout(Duration.ofMillis(500)).build());
    }

    private LockClient client() {
        return client(false, LockClient.DEFAULT_WAITER_TIMEOUT);
    }

    private static long queued(RedisServer server, String name) {
        return (Long) server.command("ZCARD", "dlock:{" + name + "}:queue");
    }

    private static void awaitQueued(List<RedisServer> servers, String name, long count) {
        await().atMost(Duration.ofSeconds(20)).until(() -> servers.stream().allMatch(server -> queued(server, name) == count));
    }

    @ParameterizedTest(name = "redlock={0}")
    @ValueSource(booleans = {false, true})
    void twentyWaitersAcrossFourClientsGetTheLockInTheOrderTheyAsked(boolean redlock) throws Exception {
        List<RedisServer> servers = redlock ? quorum.all() : single.all();
        DistributedLock holder = client(redlock, LockClient.DEFAULT_WAITER_TIMEOUT).getFairLock("fifo");
        List<LockClient> waiterClients = IntStream.range(0, 4)
                .mapToObj(i -> client(redlock, LockClient.DEFAULT_WAITER_TIMEOUT)).toList();
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
                awaitQueued(servers, "fifo", i + 1);
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
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            for (RedisServer server : servers) {
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

    @ParameterizedTest(name = "redlock={0}")
    @ValueSource(booleans = {false, true})
    void waitersKilledWhileQueuedHoldUpTheNextLiveWaiterOnlyForTheWaiterTimeout(boolean redlock) throws Exception {
        Duration waiterTimeout = Duration.ofSeconds(1);
        // the dead waiters asked for a 5-minute lease: the queue must not wait for that
        long deadWaitersLeaseMs = TimeUnit.MINUTES.toMillis(5);
        List<RedisServer> servers = redlock ? quorum.all() : single.all();
        String lockUris = redlock ? String.join(",", quorum.uris()) : single.server().uri();
        DistributedLock holder = client(redlock, waiterTimeout).getFairLock("crash-queue");
        holder.lock();
        List<JavaProcess> doomed = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            doomed.add(clients.track(JavaProcesses.start(FairWaiterWorker.class, List.of(lockUris, "crash-queue",
                    Long.toString(waiterTimeout.toMillis()), Long.toString(deadWaitersLeaseMs)))));
        }
        awaitQueued(servers, "crash-queue", 2);
        DistributedLock live = client(redlock, waiterTimeout).getFairLock("crash-queue");
        CompletableFuture<Long> liveGotItAt = CompletableFuture.supplyAsync(() -> {
            live.lock();
            long at = System.nanoTime();
            live.unlock();
            return at;
        });
        awaitQueued(servers, "crash-queue", 3);

        doomed.forEach(JavaProcess::kill);
        long killedAt = System.nanoTime();
        holder.unlock();
        // the release hands the lock to the first queued waiter, dead or not: it cannot know yet
        for (RedisServer server : servers) {
            LOG.info("after the release the lock on {} is {}", server.uri(), server.command("HGET", "dlock:{crash-queue}", "o"));
        }

        long waitedMs = TimeUnit.NANOSECONDS.toMillis(liveGotItAt.get(30, TimeUnit.SECONDS) - killedAt);
        LOG.info("redlock={}: live waiter got the lock {} ms after two queued waiters were killed (waiter timeout {} ms)",
                redlock, waitedMs, waiterTimeout.toMillis());
        assertThat(waitedMs).isLessThan(waiterTimeout.toMillis() + 1500);
        for (JavaProcess process : doomed) {
            assertThat(process.log()).contains("WAITING").doesNotContain("HOLDING");
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            for (RedisServer server : servers) {
                assertThat(keysLeft(server)).as("keys left on %s", server.uri()).isEmpty();
            }
        });
    }

    @ParameterizedTest(name = "redlock={0}")
    @ValueSource(booleans = {false, true})
    void waiterThatGivesUpHasLeftTheQueueWhenTheCallReturns(boolean redlock) throws Exception {
        List<RedisServer> servers = redlock ? quorum.all() : single.all();
        DistributedLock holder = client(redlock, LockClient.DEFAULT_WAITER_TIMEOUT).getFairLock("give-up");
        LockClient waiters = client(redlock, LockClient.DEFAULT_WAITER_TIMEOUT);
        holder.lock();

        DistributedLock timedOut = waiters.getFairLock("give-up");
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return timedOut.tryLock(500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitQueued(servers, "give-up", 1);
        for (RedisServer server : servers) {
            // while queued, the queue keys live no longer than the waiter timeout
            assertThat((Long) server.command("PTTL", "dlock:{give-up}:queue"))
                    .isPositive().isLessThanOrEqualTo(LockClient.DEFAULT_WAITER_TIMEOUT.toMillis());
        }
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isFalse();
        // at once, on every node (over Redlock not only on a majority): far sooner than the
        // waiter timeout (5 s) would have dropped the entries
        assertLeftEverywhere(servers, "give-up");

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread interrupted = new Thread(() -> {
            try {
                waiters.getFairLock("give-up").lockInterruptibly();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        interrupted.start();
        awaitQueued(servers, "give-up", 1);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertLeftEverywhere(servers, "give-up");

        CompletableFuture<LockHandle> cancelled = waiters.getFairLock("give-up").acquireAsync();
        awaitQueued(servers, "give-up", 1);
        cancelled.cancel(true);
        // well before the waiter timeout (5 s) would drop it
        await().atMost(Duration.ofSeconds(1)).until(() -> servers.stream().allMatch(server -> queued(server, "give-up") == 0));

        holder.unlock();
        if (redlock) {
            // the release returns once a majority has it: the others follow within a round trip
            await().atMost(Duration.ofSeconds(5)).until(() -> servers.stream().allMatch(server -> server.keys("dlock:{*").isEmpty()));
        } else {
            assertThat(single.server().keys("dlock:{*")).isEmpty();
        }
    }

    /** The waiter's queue entry and its liveness entry are gone from every node; the holder's hash stays. */
    private static void assertLeftEverywhere(List<RedisServer> servers, String name) {
        for (RedisServer server : servers) {
            assertThat(queued(server, name)).as("queued on %s", server.uri()).isZero();
            assertThat((Long) server.command("HLEN", "dlock:{" + name + "}:waiters")).as("waiters on %s", server.uri()).isZero();
            assertThat(server.keys("dlock:{*")).as("keys on %s", server.uri()).containsExactly("dlock:{" + name + "}");
        }
    }

    @Test
    void tryLockNeverOvertakesAQueuedWaiterAndADeadOneHoldsUpOnlyUntilItsDeadline() throws Exception {
        RedisServer server = single.server();
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
        assertThatThrownBy(() -> LockClient.builder().redisUri(single.server().uri())
                .commandTimeout(Duration.ofSeconds(1)).waiterTimeout(Duration.ofMillis(1500)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1.5");
        // a client that never asked for a waiter timeout still builds with a long command timeout
        LockClient slow = clients.track(LockClient.builder().redisUri(single.server().uri())
                .commandTimeout(Duration.ofSeconds(5)).build());
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
        assertThat(fair.scriptCalls).isLessThan(plain.scriptCalls);
    }

    private record Handoffs(long scriptCalls, long micros) {
    }

    private Handoffs handoffs(int waiters, String name, BiFunction<LockClient, String, DistributedLock> lockOf)
            throws Exception {
        RedisServer server = single.server();
        DistributedLock holder = lockOf.apply(client(), name);
        List<LockClient> waiterClients = List.of(client(), client());
        holder.lock();
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        try {
            List<Future<Long>> done = new ArrayList<>();
            long base = scriptCalls(server);
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
                await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls(server) >= base + waiting);
            }
            long callsBefore = scriptCalls(server);
            long start = System.nanoTime();
            holder.unlock();
            long last = start;
            for (Future<Long> f : done) {
                last = Math.max(last, f.get(30, TimeUnit.SECONDS));
            }
            return new Handoffs(scriptCalls(server) - callsBefore, TimeUnit.NANOSECONDS.toMicros(last - start));
        } finally {
            pool.shutdownNow();
        }
    }

    private static final Pattern CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");

    private static long scriptCalls(RedisServer server) {
        Matcher matcher = CALLS.matcher((String) server.command("INFO", "commandstats"));
        long calls = 0;
        while (matcher.find()) {
            calls += Long.parseLong(matcher.group(1));
        }
        return calls;
    }
}
