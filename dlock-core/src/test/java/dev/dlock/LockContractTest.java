package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The properties every lock type promises, checked against each of them (reentrant, fair, and the
 * read and write sides of a read-write lock) on every backend: one Redis, Redlock (5 masters), a
 * Redis Cluster and memory. Where a property is about exclusion, the read lock is checked against
 * its writer.
 */
class LockContractTest {

    // a fixed node timeout: the default (a tenth of a short test lease) is too tight on a busy machine
    @RegisterExtension
    static final LockServers servers = LockServers.everyBackend(5).withRedlockNodeTimeout(Duration.ofMillis(250));

    enum Kind {
        REENTRANT, FAIR, READ, WRITE;

        DistributedLock of(LockClient client, String name) {
            return switch (this) {
                case REENTRANT -> client.getLock(name);
                case FAIR -> client.getFairLock(name);
                case READ -> client.getReadWriteLock(name).readLock();
                case WRITE -> client.getReadWriteLock(name).writeLock();
            };
        }

        /** A lock of the same name that this one excludes (for the read lock: the writer). */
        DistributedLock rival(LockClient client, String name) {
            return this == READ ? client.getReadWriteLock(name).writeLock() : of(client, name);
        }
    }

    record Subject(Kind kind, Topology topology) {
        @Override
        public String toString() {
            return kind + " on " + topology;
        }
    }

    static Stream<Subject> subjects() {
        return servers.topologies().stream().flatMap(topology -> Stream.of(Kind.values()).map(kind -> new Subject(kind, topology)));
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    @interface Contract {
    }

    private static LockClient client(Subject subject) {
        return servers.newClient(subject.topology());
    }

    private static LockClient client(Subject subject, Duration watchdogLease) {
        return servers.newClient(subject.topology(), LockServers.lease(watchdogLease));
    }

    /**
     * The token {@code info()} shows for a hold. Over Redlock it is the largest any node proposed,
     * which may exceed the hold's own (the maximum over the nodes that formed the quorum first).
     */
    private static void assertShownToken(Subject subject, LockInfo info, long holdToken) {
        if (subject.topology() != Topology.REDLOCK) {
            assertThat(info.fencingToken()).isEqualTo(holdToken);
        } else {
            assertThat(info.fencingToken()).isGreaterThanOrEqualTo(holdToken);
        }
    }

    /** No lock key, queue or waiting mark is left where the backend keeps locks. */
    private static void assertNothingLeft(Subject subject) {
        servers.assertNothingLeft(subject.topology());
    }

    /**
     * As {@link #assertNothingLeft}, and one Redis is empty already: the release or close that
     * returned has run. Redlock nodes beyond the quorum may still be releasing.
     */
    private static void assertNothingLeftAtOnce(Subject subject) {
        if (subject.topology() == Topology.ONE_REDIS) {
            assertThat(servers.server().keys("*{*")).isEmpty();
        }
        assertNothingLeft(subject);
    }

    @Contract
    void holdersExcludeEachOtherAsTheKindSays(Subject subject) throws Exception {
        List<LockClient> both = List.of(client(subject), client(subject));
        if (subject.kind() == Kind.READ) {
            DistributedLock first = both.get(0).getReadWriteLock("shared").readLock();
            DistributedLock second = both.get(1).getReadWriteLock("shared").readLock();
            first.lock();
            assertThat(second.tryLock(5, TimeUnit.SECONDS)).as("readers share").isTrue();
            assertThat(Kind.READ.rival(client(subject), "shared").tryLock()).as("the writer waits for them").isFalse();
            first.unlock();
            second.unlock();
            assertNothingLeft(subject);
            return;
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                DistributedLock lock = subject.kind().of(both.get(t % 2), "shared");
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            LockSupport.parkNanos(200_000);
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).isZero();
        assertNothingLeft(subject);
    }

    @Contract
    void reentryCountsHoldsKeepsTheTokenAndOnlyTheLastUnlockFrees(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "reentry");
        DistributedLock rival = subject.kind().rival(client(subject), "reentry");
        lock.lock();
        long token = lock.fencingToken();
        lock.lock();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(lock.info().holdCount()).isEqualTo(3);

        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        assertThat(rival.tryLock()).isFalse();
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.isLocked()).isFalse();
        assertThat(rival.tryLock(5, TimeUnit.SECONDS)).isTrue();
        rival.unlock();
        assertNothingLeftAtOnce(subject);
    }

    @Contract
    void onlyTheOwnerUnlocks(Subject subject) throws Exception {
        LockClient client = client(subject);
        DistributedLock lock = subject.kind().of(client, "owned");
        lock.lock();

        CompletableFuture<Throwable> otherThread = CompletableFuture.supplyAsync(() -> {
            try {
                subject.kind().of(client, "owned").unlock();
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        assertThat(otherThread.get(5, TimeUnit.SECONDS))
                .isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("owned");
        DistributedLock otherClients = subject.kind().of(client(subject), "owned");
        assertThatThrownBy(otherClients::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(otherClients.isLocked()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void busyIsFalseNotAnException(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "busy");
        DistributedLock rival = subject.kind().rival(client(subject), "busy");
        lock.lock();
        assertThat(rival.tryLock()).isFalse();
        assertThat(rival.tryLock(Duration.ofMillis(100), Duration.ofSeconds(5))).isFalse();
        assertThat(rival.tryAcquireAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
        lock.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void expiredLeaseIsReportedAsLostAndSparesTheNextHolder(Subject subject) throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient holder = servers.newClient(subject.topology(), builder -> builder.listener(told::complete));
        DistributedLock lock = subject.kind().of(holder, "expiring");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
        long token = lock.fencingToken();

        DistributedLock rival = subject.kind().rival(client(subject), "expiring");
        assertThat(rival.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(rival.fencingToken()).isGreaterThan(token);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("expiring")
                .hasMessageContaining("lost")
                .satisfies(e -> assertThat(((LockLostException) e).fencingToken()).isEqualTo(token));
        assertThat(told.get(5, TimeUnit.SECONDS).lockName()).isEqualTo("expiring");
        assertThat(rival.isHeldByCurrentThread()).isTrue();
        assertThat(rival.isLocked()).isTrue();
        assertShownToken(subject, rival.info(), rival.fencingToken());
        rival.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void watchdogKeepsAHoldPastItsLease(Subject subject) throws Exception {
        Duration lease = Duration.ofMillis(600);
        DistributedLock lock = subject.kind().of(client(subject, lease), "long-hold");
        // The rival only asks, so it needs no short lease: on the default client (2 s command timeout)
        // its tryLock answers "busy" within the wait plus LockClient.WAIT_OVERRUN on a loaded machine,
        // where a client fit for a 600 ms lease (150 ms command timeout) may answer "outcome unknown".
        DistributedLock rival = subject.kind().rival(client(subject), "long-hold");
        lock.lock();
        long token = lock.fencingToken();
        // two leases: the hold outlives its first lease only by a renewal (24 subjects: 1.2 s each, not 1.8 s)
        long end = System.nanoTime() + lease.toNanos() * 2;
        while (System.nanoTime() < end) {
            assertThat(rival.tryLock(lease.toMillis() / 5, TimeUnit.MILLISECONDS)).isFalse();
        }
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertShownToken(subject, lock.info(), token);
        lock.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void everyFreshHoldGetsAGreaterToken(Subject subject) throws Exception {
        LockClient a = client(subject);
        LockClient b = client(subject);
        long previous = 0;
        for (int i = 0; i < 12; i++) {
            // two holds by one client, then two by the other: fresh holds follow the same client's and the other's
            LockClient client = i % 4 < 2 ? a : b;
            // the read lock alternates with its writer: a write after a read gets a greater token too
            DistributedLock lock = i % 3 == 2 ? subject.kind().rival(client, "tokens") : subject.kind().of(client, "tokens");
            lock.lock();
            assertThat(lock.fencingToken()).as("hold %d", i).isGreaterThan(previous);
            previous = lock.fencingToken();
            lock.unlock();
        }
        assertNothingLeft(subject);
    }

    @Contract
    void handleIsReleasedFromAnotherThreadAndTheWaitingHandleGetsIt(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "handles");
        DistributedLock rival = subject.kind().rival(client(subject), "handles");
        ExecutorService acquirer = Executors.newSingleThreadExecutor();
        try {
            LockHandle first = acquirer.submit(() -> lock.acquireAsync(Duration.ofSeconds(30)).get(5, TimeUnit.SECONDS)).get();
            assertThat(first.isValid()).isTrue();
            assertThat(lock.isLocked()).isTrue();
            assertShownToken(subject, lock.info(), first.fencingToken());

            CompletableFuture<Optional<LockHandle>> second = rival.tryAcquireAsync(Duration.ofSeconds(20));
            assertThat(second).isNotDone();
            CompletableFuture.runAsync(first::release).get(5, TimeUnit.SECONDS);
            assertThat(first.isValid()).isFalse();
            try (LockHandle next = second.get(10, TimeUnit.SECONDS).orElseThrow()) {
                assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
            }
            assertThatThrownBy(first::release).isExactlyInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("released already");
        } finally {
            acquirer.shutdown();
        }
        assertNothingLeft(subject);
    }

    @Contract
    void blockingHandleAcquiresHoldAsTheAsyncOnesDo(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "sync-handles");
        DistributedLock rival = subject.kind().rival(client(subject), "sync-handles");
        LockHandle first = lock.acquire();
        assertThat(first.isValid()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).as("a handle's hold is not the thread's").isFalse();
        assertThat(rival.tryAcquire()).isEmpty();
        assertThat(rival.tryAcquire(Duration.ofMillis(50))).isEmpty();
        assertThat(rival.tryLock(Duration.ofMillis(50))).isFalse();
        CompletableFuture.runAsync(first::release).get(5, TimeUnit.SECONDS);
        try (LockHandle second = rival.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(30)).orElseThrow()) {
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        }
        lock.acquire(Duration.ofSeconds(30)).release();
        rival.acquireUninterruptibly().release();
        assertThat(rival.tryLock(Duration.ofSeconds(5))).isTrue();
        rival.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void aHugeWaitHasNoBoundAndAnInterruptEndsABlockingHandleAcquire(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "unbounded");
        DistributedLock rival = subject.kind().rival(client(subject), "unbounded");
        rival.lock();
        ExecutorService waiters = Executors.newCachedThreadPool();
        try {
            Future<Boolean> locked = waiters.submit(() -> {
                boolean acquired = lock.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
                lock.unlock();
                return acquired;
            });
            Future<Boolean> handed = waiters.submit(() -> {
                try (LockHandle handle = lock.tryAcquire(Duration.ofDays(36_500)).orElseThrow()) {
                    return handle.isValid();
                }
            });
            CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
            Thread blocked = new Thread(() -> {
                try {
                    lock.acquire().release();
                    interrupted.complete(null);
                } catch (Throwable e) {
                    interrupted.complete(e);
                }
            });
            blocked.start();
            blocked.interrupt();
            assertThat(interrupted.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            rival.unlock();
            assertThat(locked.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(handed.get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            waiters.shutdownNow();
        }
        assertNothingLeft(subject);
    }

    @Contract
    void forceUnlockFreesTheLockAndTheHolderLearnsItLostIt(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "forced");
        DistributedLock operator = subject.kind().of(client(subject), "forced");
        lock.lock();
        assertThat(operator.forceUnlock()).isTrue();
        assertThat(operator.forceUnlock()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("forced");
        // the loss is reported once: after it the lock is simply not held
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertNothingLeft(subject);
    }

    @Contract
    void waitersThatGiveUpAndHoldersThatLeaveLeaveNothingBehind(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "left-behind");
        LockClient waiters = client(subject);
        lock.lock();
        // timed out, interrupted, cancelled
        assertThat(subject.kind().rival(waiters, "left-behind").tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread interrupted = new Thread(() -> {
            try {
                subject.kind().rival(waiters, "left-behind").lockInterruptibly();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        interrupted.start();
        CompletableFuture<LockHandle> cancelled = subject.kind().rival(waiters, "left-behind").acquireAsync();
        await().atMost(Duration.ofSeconds(5)).until(() -> interrupted.getState() == Thread.State.WAITING);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(cancelled.cancel(true)).isTrue();
        lock.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void infoShowsHolderTokenAndLease(Subject subject) throws Exception {
        LockClient client = servers.newClient(subject.topology(), builder -> builder.clientName("billing-7"));
        DistributedLock lock = subject.kind().of(client, "inspected");
        assertThat(lock.info().isLocked()).isFalse();
        assertThat(lock.remainingLease()).isEqualTo(Duration.ZERO);
        lock.lock(Duration.ofSeconds(20));
        LockInfo info = lock.info();
        assertThat(info.key()).isEqualTo("dlock:{inspected}");
        assertThat(info.holder()).hasValueSatisfying(holder -> {
            assertThat(holder.clientName()).isEqualTo("billing-7");
            assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(holder.thread()).isEqualTo(Thread.currentThread().getName());
        });
        assertShownToken(subject, info, lock.fencingToken());
        assertThat(info.holdCount()).isEqualTo(1);
        assertThat(info.remainingLease()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
        lock.unlock();
    }

    /**
     * The longest name the API accepts, of characters of three bytes each in UTF-8 (3,072 bytes),
     * all different: a store that compresses it (PostgreSQL does, before indexing) gains nothing.
     */
    static final String LONGEST_MULTI_BYTE_NAME = java.util.stream.IntStream.range(0, LockClient.MAX_NAME_LENGTH)
            .map(i -> 0x4E00 + i).collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();

    @Contract
    void everyNameTheApiAcceptsLocksAndIsListedAsItIs(Subject subject) throws Exception {
        LockClient holderClient = client(subject);
        LockClient rivalClient = client(subject);
        for (String name : List.of(LONGEST_MULTI_BYTE_NAME, "a_c", "a%c", "back\\slash", "it's", "star*", "_", "%")) {
            DistributedLock lock = subject.kind().of(holderClient, name);
            lock.lock();
            assertThat(subject.kind().rival(rivalClient, name).tryLock()).as("%s: rival of %.40s", subject, name).isFalse();
            assertThat(lock.info().isLocked()).isTrue();
            assertThat(lock.info().name()).isEqualTo(name);
            assertThat(holderClient.listLocks("*")).extracting(LockInfo::name).contains(name);
            lock.unlock();
            // a wait, not a single try: over Redlock a node beyond the quorum may still be releasing, and one
            // slow node reply on a loaded machine makes a single try miss its quorum although the lock is free
            assertThat(subject.kind().rival(rivalClient, name).tryLock(10, TimeUnit.SECONDS))
                    .as("%s: rival of %.40s after unlock", subject, name).isTrue();
            subject.kind().rival(rivalClient, name).unlock();
        }
        // _ and % are literal characters, not patterns: a hold of a_c is none of abc
        DistributedLock underscore = subject.kind().of(holderClient, "a_c");
        underscore.lock();
        assertThat(subject.kind().rival(rivalClient, "abc").tryLock(10, TimeUnit.SECONDS)).isTrue();
        subject.kind().rival(rivalClient, "abc").unlock();
        assertThat(holderClient.listLocks("a?c")).extracting(LockInfo::name).containsExactly("a_c");
        underscore.unlock();
        assertNothingLeft(subject);
    }

    @Contract
    void infoShowsHowLongTheHoldHasLastedAcrossReentries(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().of(client(subject), "timed");
        assertThat(lock.info().heldFor()).isEqualTo(Duration.ZERO);
        long before = System.nanoTime();
        lock.lock();
        // the servers run on this machine: their clock and this one agree, up to the rounding to ms
        await().atMost(Duration.ofSeconds(10)).until(() -> lock.info().heldFor().toMillis() >= 300);
        assertThat(lock.tryLock()).isTrue();
        Duration afterReentry = lock.info().heldFor();
        assertThat(afterReentry).as("a re-entry does not restart it")
                .isBetween(Duration.ofMillis(300), Duration.ofNanos(System.nanoTime() - before).plusMillis(5));
        lock.unlock();
        lock.unlock();
        assertThat(lock.info().heldFor()).isEqualTo(Duration.ZERO);
    }

    @Contract
    void closeReleasesWhatTheClientHolds(Subject subject) throws Exception {
        LockClient client = client(subject);
        subject.kind().of(client, "held-at-close").lock();
        subject.kind().of(client, "held-at-close-2").lock(Duration.ofMinutes(5));
        client.close();
        assertNothingLeftAtOnce(subject);
    }

    @Contract
    void closeEndsAWaitOfThatClientWithAnException(Subject subject) throws Exception {
        LockClient holderClient = client(subject);
        CountDownLatch waitStarted = new CountDownLatch(1);
        LockClient waiterClient = servers.newClient(subject.topology(), builder -> builder.observer(new LockObserver() {
            @Override
            public void waitStarted(dev.dlock.LockKind kind, String lockName) {
                waitStarted.countDown();
            }
        }));
        subject.kind().rival(holderClient, "closed-while-waiting").lock();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> waiting = pool.submit(() -> {
                subject.kind().of(waiterClient, "closed-while-waiting").lock();
                return null;
            });
            assertThat(waitStarted.await(10, TimeUnit.SECONDS)).as("the waiter is waiting").isTrue();
            waiterClient.close();
            assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        } finally {
            pool.shutdownNow();
        }
    }
}
