package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import dev.dlock.processes.ReadWriteWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the read-write lock adds to the contract: sharing, writers first, downgrade, no upgrade. */
class ReadWriteLockTest {

    private static final Logger LOG = LoggerFactory.getLogger(ReadWriteLockTest.class);

    // a fixed node timeout: the default (a tenth of a short test lease) is too tight on a busy machine
    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(5).withRedlockNodeTimeout(Duration.ofMillis(250)).withInMemory();

    private static LockClient client(Topology topology) {
        return servers.newClient(topology, builder -> builder.commandTimeout(Duration.ofMillis(500)));
    }

    private static LockClient client() {
        return client(Topology.ONE_REDIS);
    }

    private static void assertNothingLeft(List<RedisServer> nodes) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            for (RedisServer server : nodes) {
                assertThat(server.keys("dlock:{*")).as(server.uri()).isEmpty();
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK"})
    void readersOverlapAndAWriterIsAlwaysAloneAcrossProcesses(Topology topology) {
        // over Redlock the workers lock on all 5 masters and keep their counters on the first
        RedisServer counters = servers.servers(topology).get(0);
        String lockUris = String.join(",", servers.uris(topology));
        List<JavaProcess> workers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            // three readers (5 ms holds) and a writer (every 20 ms) each, for three seconds
            workers.add(servers.track(JavaProcesses.start(ReadWriteWorker.class,
                    List.of(lockUris, "across-jvms", "3", "1", "3000", "5", "20"))));
        }
        // both connected before either starts its run, so that their runs overlap
        await().atMost(Duration.ofMinutes(1)).until(() -> Long.valueOf(2).equals(counters.command("LLEN", "rw:ready")));
        counters.command("RPUSH", "rw:go", "go", "go");
        for (JavaProcess worker : workers) {
            assertThat(worker.waitFor(Duration.ofMinutes(1))).as(worker.log()).isZero();
            assertThat(worker.log()).contains("DONE");
        }
        LOG.info("{}: reads {}, writes {}, reader overlaps {}, most readers inside at once {}, from at most {} processes",
                topology, counters.command("GET", "rw:reads"), counters.command("GET", "rw:writes"),
                counters.command("GET", "rw:overlaps"), counters.command("GET", "rw:most-readers"),
                counters.command("GET", "rw:most-processes"));
        assertThat(counters.command("GET", "rw:violations")).isNull();
        assertThat(count(counters, "rw:writes")).isPositive();
        assertThat(count(counters, "rw:reads")).isPositive();
        // readers share: several inside at once, from both processes
        assertThat(count(counters, "rw:overlaps")).isPositive();
        assertThat(count(counters, "rw:most-readers")).isGreaterThan(1);
        assertThat(count(counters, "rw:most-processes")).isEqualTo(2);
        assertNothingLeft(servers.servers(topology));
    }

    private static long count(RedisServer server, String key) {
        Object value = server.command("GET", key);
        return value == null ? 0 : Long.parseLong((String) value);
    }

    @Test
    void writerWaitingBehindAStreamOfReadersGetsInWithinABound() throws Exception {
        long readHoldMs = 100;
        List<LockClient> readerClients = List.of(client(), client());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicLong reads = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> readers = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                DistributedLock read = readerClients.get(i % 2).getReadWriteLock("stream").readLock();
                readers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        read.lock();
                        try {
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            TimeUnit.MILLISECONDS.sleep(readHoldMs);
                            inside.decrementAndGet();
                            reads.incrementAndGet();
                        } finally {
                            read.unlock();
                        }
                    }
                    return null;
                }));
            }
            // a steady stream: some reader is always inside
            await().atMost(Duration.ofSeconds(10)).until(() -> mostInside.get() >= 3 && reads.get() >= 8);

            DistributedLock write = client().getReadWriteLock("stream").writeLock();
            long start = System.nanoTime();
            assertThat(write.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(inside.get()).as("readers inside with the writer").isZero();
            long readsDuringWrite = reads.get();
            TimeUnit.MILLISECONDS.sleep(50);
            assertThat(inside.get()).isZero();
            assertThat(reads.get()).isEqualTo(readsDuringWrite);
            write.unlock();
            LOG.info("writer behind a stream of readers (each holding {} ms) got in after {} ms", readHoldMs, waitedMs);
            // it waited for the read holds in progress, not for the stream to dry up
            assertThat(waitedMs).isLessThan(readHoldMs + 1500);

            long readsAfterWrite = reads.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() >= readsAfterWrite + 4);
        } finally {
            stop.set(true);
            for (Future<?> reader : readers) {
                reader.get(10, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        assertNothingLeft(servers.servers(Topology.ONE_REDIS));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY"})
    void writerMayTakeTheReadLockAndKeepsReadingAfterUnlockingTheWrite(Topology topology) throws Exception {
        DistributedReadWriteLock mine = client(topology).getReadWriteLock("downgrade");
        DistributedReadWriteLock other = client(topology).getReadWriteLock("downgrade");
        mine.writeLock().lock();
        long writeToken = mine.writeLock().fencingToken();
        assertThat(mine.readLock().tryLock()).as("the writer's own read").isTrue();
        assertThat(mine.readLock().fencingToken()).isGreaterThan(writeToken);
        assertThat(other.readLock().tryLock()).as("others wait while it writes").isFalse();

        mine.writeLock().unlock();
        assertThat(mine.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(mine.writeLock().isLocked()).isFalse();
        assertThat(other.readLock().tryLock(5, TimeUnit.SECONDS)).as("now readers share").isTrue();
        assertThat(client(topology).getReadWriteLock("downgrade").writeLock().tryLock()).isFalse();
        assertThat(mine.readLock().info().holdCount()).isEqualTo(2);

        mine.readLock().unlock();
        other.readLock().unlock();
        servers.assertNothingLeft(topology);
    }

    @Test
    void readerAskingForTheWriteLockIsRefusedAtOnceWithoutCallingRedis() throws Exception {
        DistributedReadWriteLock lock = client().getReadWriteLock("upgrade");
        lock.readLock().lock(Duration.ofSeconds(30));
        long calls = CommandStats.scriptCalls(servers.server());
        List<ThrowingCall> upgrades = List.of(
                () -> lock.writeLock().lock(),
                () -> lock.writeLock().tryLock(),
                () -> lock.writeLock().tryLock(1, TimeUnit.SECONDS),
                () -> lock.writeLock().tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5)),
                () -> lock.writeLock().lockInterruptibly());
        for (ThrowingCall upgrade : upgrades) {
            assertThatThrownBy(upgrade::call)
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("upgrade")
                    .hasMessageContaining("'upgrade'");
        }
        // refused before any attempt: no script call, so it neither tried nor waited in Redis
        assertThat(CommandStats.scriptCalls(servers.server())).isEqualTo(calls);
        assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(lock.writeLock().isHeldByCurrentThread()).isFalse();

        lock.readLock().unlock();
        assertThat(lock.writeLock().tryLock()).isTrue();
        lock.writeLock().unlock();
        assertNothingLeft(servers.servers(Topology.ONE_REDIS));
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void call() throws Exception;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY"})
    void writerThatGivesUpLetsTheReadersItHeldBackInAtOnce(Topology topology) throws Exception {
        List<RedisServer> nodes = servers.servers(topology);
        DistributedLock reading = client(topology).getReadWriteLock("gave-up").readLock();
        reading.lock(Duration.ofSeconds(30));
        DistributedLock writer = client(topology).getReadWriteLock("gave-up").writeLock();
        CompletableFuture<Boolean> writerGot = CompletableFuture.supplyAsync(() -> {
            try {
                return writer.tryLock(800, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // marked on every node: over Redlock a reader is held back by a majority of marks
        await().atMost(Duration.ofSeconds(5)).until(() -> nodes.stream()
                .allMatch(server -> server.command("HGET", "dlock:{gave-up}", "w") != null));
        if (topology == Topology.IN_MEMORY) {
            // no node to look at: the mark shows as a new reader being held back
            DistributedLock probe = client(topology).getReadWriteLock("gave-up").readLock();
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                boolean got = probe.tryLock();
                if (got) {
                    probe.unlock();
                }
                return !got;
            });
        }
        DistributedLock lateReader = client(topology).getReadWriteLock("gave-up").readLock();
        assertThat(lateReader.tryLock()).as("held back by the waiting writer").isFalse();
        CompletableFuture<Long> lateReaderGotItAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(lateReader.tryLock(10, TimeUnit.SECONDS)).isTrue();
                long at = System.nanoTime();
                lateReader.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(writerGot.get(10, TimeUnit.SECONDS)).isFalse();
        long gaveUpAt = System.nanoTime();
        // the call returned once the mark was gone from every node, not just from a majority
        for (RedisServer server : nodes) {
            assertThat(server.command("HGET", "dlock:{gave-up}", "w")).as("waiting mark on %s", server.uri()).isNull();
        }
        // at once: not when the mark would have lapsed (the waiter timeout, 5 s)
        assertThat(TimeUnit.NANOSECONDS.toMillis(lateReaderGotItAt.get(10, TimeUnit.SECONDS) - gaveUpAt)).isLessThan(1000);
        reading.unlock();
        servers.assertNothingLeft(topology);
    }

    @Test
    void aPlainLockOfTheSameNameCountsAsAWriter() throws Exception {
        DistributedLock plain = client().getLock("mixed");
        DistributedReadWriteLock lock = client().getReadWriteLock("mixed");
        lock.readLock().lock();
        assertThat(plain.tryLock()).isFalse();
        lock.readLock().unlock();
        plain.lock();
        assertThat(lock.readLock().tryLock()).isFalse();
        assertThat(lock.writeLock().tryLock()).isFalse();
        assertThat(lock.writeLock().tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        plain.unlock();
        assertThat(lock.writeLock().tryLock()).isTrue();
        assertThat(plain.tryLock()).isFalse();
        lock.writeLock().unlock();
        assertNothingLeft(servers.servers(Topology.ONE_REDIS));
    }
}
