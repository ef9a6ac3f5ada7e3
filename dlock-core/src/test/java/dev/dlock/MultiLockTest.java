package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import dev.dlock.processes.MultiLockWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Multi-locks: all the names or none, no deadlock between overlapping sets, one hold count. */
class MultiLockTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(5).withRedlockNodeTimeout(Duration.ofMillis(250))
            .withInMemory().withPostgres().withZooKeeper();

    /** Counts holders from outside: not the Redis the locks live on. */
    @RegisterExtension
    static final RedisServers witness = RedisServers.standalone();

    private static void assertNothingLeft(Topology topology) {
        servers.assertNothingLeft(topology);
    }

    @Test
    void twoProcessesTakingTheSameNamesInOppositeOrdersNeverDeadlockNorOverlap() {
        RedisServer counters = witness.server();
        int iterations = 200;
        List<JavaProcess> workers = new ArrayList<>();
        for (String names : List.of("a,b", "b,a")) {
            workers.add(servers.track(JavaProcesses.start(MultiLockWorker.class,
                    List.of(servers.server().uri(), names, Integer.toString(iterations), counters.uri()))));
        }
        await().atMost(Duration.ofMinutes(1)).until(() -> Long.valueOf(2).equals(counters.command("LLEN", "multi:ready")));
        counters.command("RPUSH", "multi:go", "go", "go");
        // a deadlock would hold both forever: each would wait for the name the other holds
        for (JavaProcess worker : workers) {
            assertThat(worker.waitFor(Duration.ofMinutes(3))).as(worker.log()).isZero();
            assertThat(worker.log()).contains("DONE");
        }
        assertThat(counters.command("GET", "multi:violations")).as("entries that found another inside").isNull();
        assertThat(counters.command("GET", "multi:entries")).isEqualTo(Integer.toString(2 * iterations));
        assertNothingLeft(Topology.ONE_REDIS);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "POSTGRES", "ZOOKEEPER"})
    void aFailedMultiAcquireLeavesNoneOfTheNamesHeld(Topology topology) throws Exception {
        LockClient client = servers.newClient(topology);
        DistributedLock b = servers.newClient(topology).getLock("b");
        b.lock();
        long bToken = b.fencingToken();
        DistributedLock multi = client.getMultiLock("c", "b", "a");
        assertThat(multi.tryLock()).isFalse();
        assertThat(multi.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(multi.tryLock(Duration.ofMillis(200), Duration.ofSeconds(5))).isFalse();
        assertThat(multi.tryAcquireAsync(Duration.ofMillis(200)).get(10, TimeUnit.SECONDS)).isEmpty();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread interrupted = new Thread(() -> {
            try {
                multi.lockInterruptibly();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        interrupted.start();
        CompletableFuture<LockHandle> cancelled = multi.acquireAsync();
        await().atMost(Duration.ofSeconds(5)).until(() -> interrupted.getState() == Thread.State.WAITING);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(cancelled.cancel(true)).isTrue();

        // a and c were taken on the way to b (sorted order) and given back each time
        for (String name : List.of("a", "c")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !client.getLock(name).isLocked());
        }
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThat(b.isHeldByCurrentThread()).isTrue();
        assertThat(b.info().fencingToken()).isGreaterThanOrEqualTo(bToken);
        b.unlock();
        assertThat(multi.tryLock(5, TimeUnit.SECONDS)).isTrue();
        multi.unlock();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "POSTGRES", "ZOOKEEPER"})
    void overlappingMultiLocksExcludeEachOtherOnEveryName(Topology topology) throws Exception {
        List<LockClient> clients = List.of(servers.newClient(topology), servers.newClient(topology));
        List<List<String>> sets = List.of(List.of("x", "y"), List.of("y", "z"), List.of("z", "x"), List.of("y"));
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(sets.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < sets.size(); t++) {
                List<String> names = sets.get(t);
                DistributedLock lock = clients.get(t % 2).getMultiLock(names.toArray(String[]::new));
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        lock.lock();
                        try {
                            names.forEach(name -> {
                                if (inside[name.charAt(0) - 'x'].incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                            });
                            LockSupport.parkNanos(300_000);
                            names.forEach(name -> inside[name.charAt(0) - 'x'].decrementAndGet());
                        } finally {
                            lock.unlock();
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
        assertThat(overlaps.get()).isZero();
        assertNothingLeft(topology);
    }

    @Test
    void oneHoldCountOverAllNamesAndOnlyTheHolderUnlocks() throws Exception {
        LockClient client = servers.newClient(Topology.ONE_REDIS);
        DistributedLock multi = client.getMultiLock("p", "q");
        assertThat(multi.name()).isEqualTo("multi-lock[p, q]");
        assertThat(multi.names()).containsExactly("p", "q");
        assertThat(client.getLock("p").names()).containsExactly("p");
        assertThatThrownBy(multi::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("[p, q]");
        multi.lock();
        multi.lock();
        assertThat(multi.getHoldCount()).isEqualTo(2);
        assertThat(client.getLock("p").getHoldCount()).isEqualTo(2);
        assertThat(multi.fencingToken()).isEqualTo(Math.max(client.getLock("p").fencingToken(),
                client.getLock("q").fencingToken()));
        LockInfo info = multi.info();
        assertThat(info.isLocked()).isTrue();
        assertThat(info.holds()).hasSize(2);
        assertThat(info.fencingToken()).isEqualTo(multi.fencingToken());

        CompletableFuture<Throwable> otherThread = CompletableFuture.supplyAsync(() -> {
            try {
                multi.unlock();
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        assertThat(otherThread.get(5, TimeUnit.SECONDS)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        DistributedLock otherClients = servers.newClient(Topology.ONE_REDIS).getMultiLock("q", "p");
        assertThat(otherClients.tryLock()).isFalse();
        assertThatThrownBy(otherClients::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);

        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(multi.getHoldCount()).isZero();
        assertThat(multi.isLocked()).isFalse();
        assertThatThrownBy(multi::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertNothingLeft(Topology.ONE_REDIS);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "IN_MEMORY", "POSTGRES", "ZOOKEEPER"})
    void blockingHandleAcquiresAndAHugeWaitTakeEveryNameOrNone(Topology topology) throws Exception {
        DistributedLock multi = servers.newClient(topology).getMultiLock("s1", "s2");
        DistributedLock rival = servers.newClient(topology).getMultiLock("s2", "s3");
        LockHandle handle = multi.acquire();
        assertThat(handle.lockName()).isEqualTo("multi-lock[s1, s2]");
        assertThat(rival.tryAcquire()).isEmpty();
        assertThat(rival.tryAcquire(Duration.ofMillis(50), Duration.ofSeconds(30))).isEmpty();
        assertThat(rival.tryLock(Duration.ofMillis(50))).isFalse();
        DistributedLock s3 = servers.newClient(topology).getLock("s3");
        assertThat(s3.tryLock()).as("s3 given back").isTrue();
        s3.unlock();
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> unbounded = waiter.submit(() -> {
                boolean acquired = rival.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
                rival.unlock();
                return acquired;
            });
            handle.release();
            assertThat(unbounded.get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            waiter.shutdownNow();
        }
        try (LockHandle whole = rival.tryAcquire(Duration.ofDays(1_000)).orElseThrow()) {
            assertThat(whole.isValid()).isTrue();
        }
        rival.acquire(Duration.ofSeconds(30)).release();
        multi.acquireUninterruptibly().release();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "POSTGRES", "ZOOKEEPER"})
    void aHandleHoldsEveryNameAndIsReleasedFromAnyThread(Topology topology) throws Exception {
        DistributedLock multi = servers.newClient(topology).getMultiLock("h1", "h2");
        DistributedLock rival = servers.newClient(topology).getMultiLock("h2", "h3");
        LockHandle handle = multi.acquireAsync(Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS);
        assertThat(handle.isValid()).isTrue();
        assertThat(handle.lockName()).isEqualTo("multi-lock[h1, h2]");
        CompletableFuture<Optional<LockHandle>> waiting = rival.tryAcquireAsync(Duration.ofSeconds(20));
        assertThat(waiting).isNotDone();
        CompletableFuture.runAsync(handle::release).get(10, TimeUnit.SECONDS);
        assertThat(handle.isValid()).isFalse();
        LockHandle next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
        // a name taken away is the whole multi-lock's loss
        assertThat(servers.newClient(topology).getLock("h3").forceUnlock()).isTrue();
        assertThat(next.whenLost().get(10, TimeUnit.SECONDS).lockName()).isEqualTo("h3");
        assertThat(next.isValid()).isFalse();
        // the release reports the loss, and gives back the other name all the same
        assertThatThrownBy(next::release).isInstanceOf(LockLostException.class).hasMessageContaining("h3");
        assertThatThrownBy(handle::release).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertNothingLeft(topology);
    }

    @Test
    void badNameListsAreRefusedNamingTheValue() {
        LockClient client = servers.newClient(Topology.ONE_REDIS);
        assertThatThrownBy(client::getMultiLock).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one lock name");
        assertThatThrownBy(() -> client.getMultiLock((String[]) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.getMultiLock("a", "b", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a' is given twice");
        assertThatThrownBy(() -> client.getMultiLock("a", " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("' '");
        assertThatThrownBy(() -> client.getMultiLock("a", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }
}
