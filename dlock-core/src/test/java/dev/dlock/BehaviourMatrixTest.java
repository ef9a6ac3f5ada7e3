package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour matrix of docs/locks.md, one test per cell: each test is one situation (acquired,
 * busy, the caller's future timed out or cancelled, interrupted, store outage, lease lost, released
 * twice, released from another thread, client closed) for one family of methods (thread-bound,
 * handles, a semaphore's blocking acquires), run for every kind on every store: in memory, one
 * Redis, PostgreSQL and ZooKeeper; an outage (see {@link #withServers()}) likewise, but in memory.
 * Servers are shared by the class.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BehaviourMatrixTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis().withInMemory().withPostgres().withZooKeeper();

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration SHORT_LEASE = Duration.ofMillis(300);

    /** What is locked: the lock kinds, a multi-lock over two names, a semaphore of one permit. */
    enum Kind {
        LOCK, FAIR, READ, WRITE, MULTI, SEMAPHORE;

        DistributedLock lock(LockClient client, String name) {
            return switch (this) {
                case LOCK -> client.getLock(name);
                case FAIR -> client.getFairLock(name);
                case READ -> client.getReadWriteLock(name).readLock();
                case WRITE -> client.getReadWriteLock(name).writeLock();
                case MULTI -> client.getMultiLock(name + "-a", name + "-b");
                case SEMAPHORE -> throw new IllegalStateException("a semaphore has no thread-bound lock");
            };
        }

        /** A lock of the same name that this one excludes (for the read lock: the writer). */
        DistributedLock rivalLock(LockClient client, String name) {
            return this == READ ? client.getReadWriteLock(name).writeLock() : lock(client, name);
        }

        CompletableFuture<LockHandle> acquireAsync(LockClient client, String name) {
            return this == SEMAPHORE ? semaphore(client, name).acquireAsync() : lock(client, name).acquireAsync();
        }

        CompletableFuture<LockHandle> acquireAsync(LockClient client, String name, Duration lease) {
            return this == SEMAPHORE ? semaphore(client, name).acquireAsync(lease) : lock(client, name).acquireAsync(lease);
        }

        CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockClient client, String name, Duration wait) {
            return this == SEMAPHORE ? semaphore(client, name).tryAcquireAsync(wait) : lock(client, name).tryAcquireAsync(wait);
        }

        CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockClient client, String name, Duration wait,
                                                               Duration lease) {
            return this == SEMAPHORE ? semaphore(client, name).tryAcquireAsync(wait, lease)
                    : lock(client, name).tryAcquireAsync(wait, lease);
        }

        /** What another client holds so that this kind's acquire of the name is busy. */
        LockHandle rivalHolds(LockClient other, String name) throws Exception {
            CompletableFuture<LockHandle> rival = this == SEMAPHORE ? semaphore(other, name).acquireAsync()
                    : rivalLock(other, name).acquireAsync();
            return rival.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        static DistributedSemaphore semaphore(LockClient client, String name) {
            return client.getSemaphore(name, 1);
        }
    }

    record Subject(Kind kind, Topology topology) {
        @Override
        public String toString() {
            return kind + " on " + topology;
        }
    }

    static Stream<Subject> locks() {
        return subjects(List.of(Kind.LOCK, Kind.FAIR, Kind.READ, Kind.WRITE, Kind.MULTI), servers.topologies());
    }

    static Stream<Subject> locksWithServers() {
        return subjects(List.of(Kind.LOCK, Kind.FAIR, Kind.READ, Kind.WRITE, Kind.MULTI), withServers());
    }

    static Stream<Subject> everyKind() {
        return subjects(List.of(Kind.values()), servers.topologies());
    }

    static Stream<Subject> everyKindWithServers() {
        return subjects(List.of(Kind.values()), withServers());
    }

    static Stream<Subject> semaphores() {
        return subjects(List.of(Kind.SEMAPHORE), servers.topologies());
    }

    static Stream<Subject> semaphoresWithServers() {
        return subjects(List.of(Kind.SEMAPHORE), withServers());
    }

    /**
     * Where an outage is made by pausing the servers: one Redis, PostgreSQL and ZooKeeper (LockServers.pauseStore
     * pauses the whole ensemble). In memory there is none.
     */
    private static List<Topology> withServers() {
        return List.of(Topology.ONE_REDIS, Topology.POSTGRES, Topology.ZOOKEEPER);
    }

    /** Whatever a test left paused runs again before the servers are cleaned for the next one. */
    private Runnable resumeAfterTest = () -> { };

    @AfterEach
    void resumeTheStore() {
        resumeAfterTest.run();
    }

    private Runnable pause(Topology topology) {
        Runnable resume = servers.pauseStore(topology);
        resumeAfterTest = resume;
        return resume;
    }

    private static Stream<Subject> subjects(List<Kind> kinds, List<Topology> topologies) {
        return topologies.stream().flatMap(topology -> kinds.stream().map(kind -> new Subject(kind, topology)));
    }

    /** A client whose store failures show within seconds: 1 s per command, 1 s of outage tolerance. */
    private static LockClient client(Subject subject) {
        if (subject.topology() == Topology.ZOOKEEPER) {
            // a release in an outage waits for the reconnection up to the session timeout: a short session
            // (at least half the default lease) keeps the outage cells to seconds
            return servers.track(LockClient.builder()
                    .store(ZooKeeperStore.connect(servers.zookeeper().connectString()).sessionTimeout(Duration.ofSeconds(4)))
                    .defaultLease(Duration.ofSeconds(8)).commandTimeout(Duration.ofSeconds(1))
                    .outageTolerance(Duration.ofSeconds(1)).build());
        }
        return servers.newClient(subject.topology(), builder -> builder.commandTimeout(Duration.ofSeconds(1))
                .outageTolerance(Duration.ofSeconds(1)));
    }

    /**
     * What a release in an outage throws: {@code LockBackendException}; on ZooKeeper, whose release waits
     * for the reconnection up to the session timeout, {@code LockLostException} when the hold's validity
     * (its lease, at most the session) ended meanwhile (docs/design.md, "Leases and the session").
     */
    private static void assertOutageRelease(Subject subject, RuntimeException thrown) {
        if (subject.topology() == Topology.ZOOKEEPER && thrown instanceof LockLostException) {
            return;
        }
        assertThat(thrown).isInstanceOf(LockBackendException.class);
    }

    /** A call on a thread of its own, to be interrupted or to wait. */
    private static final class Call<T> {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Thread thread;

        Call(Callable<T> call) {
            thread = new Thread(() -> {
                try {
                    result.complete(call.call());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            }, "matrix-call");
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits until the call is parked (waiting for the store or the lock). */
        Call<T> parked() {
            await().atMost(WAIT).until(() -> result.isDone() || thread.getState() == Thread.State.WAITING
                    || thread.getState() == Thread.State.TIMED_WAITING);
            assertThat(result).as("still waiting").isNotDone();
            return this;
        }

        T get() throws Exception {
            return result.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
        }

        Throwable failure() {
            assertThatThrownBy(this::get).isInstanceOf(ExecutionException.class);
            return result.handle((ok, error) -> error).join();
        }
    }

    private static RuntimeException thrownBy(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("nothing was thrown");
    }

    /** Whether another client takes the name (for a read lock: as a writer) within the wait, and gives it back. */
    private static boolean takenByAnother(Subject subject, String name) throws Exception {
        Kind probe = subject.kind() == Kind.READ ? Kind.WRITE : subject.kind();
        Optional<LockHandle> taken = probe.tryAcquireAsync(servers.newClient(subject.topology()), name, WAIT)
                .get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
        taken.ifPresent(LockHandle::release);
        return taken.isPresent();
    }

    private static Throwable failureOf(CompletableFuture<?> future) {
        assertThatThrownBy(() -> future.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        return future.handle((ok, error) -> error).join();
    }

    // ---- thread-bound: lock(), lock(lease), lockInterruptibly(), tryLock(), tryLock(time, unit),
    // ---- tryLock(wait, lease), unlock(), unlockHoldingAtLeast(d)

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundAcquired(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "acquired");
        List<Callable<Boolean>> acquires = List.of(() -> {
            lock.lock();
            return true;
        }, () -> {
            lock.lock(Duration.ofSeconds(30));
            return true;
        }, () -> {
            lock.lockInterruptibly();
            return true;
        }, lock::tryLock, () -> lock.tryLock(1, TimeUnit.SECONDS), () -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(30)));
        for (Callable<Boolean> acquire : acquires) {
            assertThat(acquire.call()).isTrue();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.getHoldCount()).isEqualTo(1);
            assertThat(lock.fencingToken()).isPositive();
            lock.unlock();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
        }
        lock.lock();
        lock.unlockHoldingAtLeast(Duration.ZERO);
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundBusy(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "busy");
        LockHandle rival = subject.kind().rivalHolds(client(subject), "busy");
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.tryLock(Duration.ofMillis(50), Duration.ofSeconds(30))).isFalse();
        Call<Boolean> waiting = new Call<>(() -> {
            lock.lock();
            lock.unlock();
            return true;
        }).parked();
        rival.release();
        assertThat(waiting.get()).isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundInterrupted(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "interrupted");
        LockHandle rival = subject.kind().rivalHolds(client(subject), "interrupted");
        assertInterrupts(subject, rival, () -> {
            lock.lockInterruptibly();
            return true;
        }, () -> lock.tryLock(30, TimeUnit.SECONDS), () -> {
            lock.lock();
            boolean flagSet = Thread.currentThread().isInterrupted();
            lock.unlock();
            return flagSet;
        });
    }

    /**
     * Three callers wait for what the rival holds and are interrupted: the interruptible and the
     * bounded one throw InterruptedException, leaving nothing; the uninterruptible one goes on
     * waiting and, once the rival releases, returns (true) with its interrupt flag set.
     */
    private static void assertInterrupts(Subject subject, LockHandle rival, Callable<?> interruptible, Callable<?> bounded,
                                         Callable<Boolean> uninterruptible) throws Exception {
        List<Call<?>> interrupted = List.of(new Call<>(interruptible).parked(), new Call<>(bounded).parked());
        Call<Boolean> goesOn = new Call<>(uninterruptible).parked();
        interrupted.forEach(call -> call.thread.interrupt());
        goesOn.thread.interrupt();
        for (Call<?> call : interrupted) {
            assertThat(call.failure()).isInstanceOf(InterruptedException.class);
        }
        assertThat(goesOn.result).as("the uninterruptible acquire goes on waiting").isNotDone();
        rival.release();
        assertThat(goesOn.get()).as("returns with the interrupt flag set").isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locksWithServers")
    void threadBoundStoreOutage(Subject subject) throws Exception {
        DistributedLock held = subject.kind().lock(client(subject), "outage-held");
        DistributedLock lock = subject.kind().lock(client(subject), "outage");
        held.lock(Duration.ofSeconds(5));
        Runnable resume = pause(subject.topology());
        try {
            assertOutageRelease(subject, thrownBy(held::unlock));
            assertThat(held.isHeldByCurrentThread()).isFalse();
            assertThat(thrownBy(lock::tryLock)).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS)).isInstanceOf(LockBackendException.class);
            assertThat(thrownBy(lock::lock)).as("after the outage tolerance").isInstanceOf(LockBackendException.class);
        } finally {
            resume.run();
        }
        assertThat(takenByAnother(subject, "outage-held")).as("its lease freed it").isTrue();
        assertThat(takenByAnother(subject, "outage")).as("nothing left held by the failed acquires").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundLeaseLost(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "lost");
        // long enough for the re-entry to come before the end on a busy machine
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(1))).isTrue();
        lock.lock(Duration.ofSeconds(1));
        await().pollInSameThread().atMost(WAIT).until(() -> !lock.isHeldByCurrentThread());
        assertThat(lock.getHoldCount()).isZero();
        assertThat(thrownBy(lock::unlock)).isInstanceOf(LockLostException.class);
        assertThat(thrownBy(lock::unlock)).as("each unlock owed").isInstanceOf(LockLostException.class);
        assertThat(thrownBy(lock::unlock)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.tryLock(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        // on ZooKeeper a lost read hold's node stays (its session lives) until a contender finds its lease ended
        assertThat(takenByAnother(subject, "lost")).isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundReleasedTwice(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "twice");
        lock.lock();
        lock.unlock();
        assertThat(thrownBy(lock::unlock)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(thrownBy(() -> lock.unlockHoldingAtLeast(Duration.ofSeconds(1))))
                .isExactlyInstanceOf(IllegalMonitorStateException.class);
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundReleasedFromAnotherThread(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "other-thread");
        lock.lock();
        assertThat(new Call<>(() -> {
            lock.unlock();
            return true;
        }).failure()).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(subject.kind().rivalLock(client(subject), "other-thread").tryLock()).as("still held").isFalse();
        lock.unlock();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundClientClosed(Subject subject) throws Exception {
        LockClient client = client(subject);
        DistributedLock held = subject.kind().lock(client, "closed-held");
        DistributedLock lock = subject.kind().lock(client, "closed");
        held.lock();
        LockHandle rival = subject.kind().rivalHolds(client(subject), "closed");
        Call<Boolean> waiting = new Call<>(() -> {
            lock.lock();
            return true;
        }).parked();
        client.close();
        assertThat(waiting.failure()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(thrownBy(held::unlock)).as("close released it").isInstanceOf(LockLostException.class);
        assertThat(thrownBy(lock::lock)).isInstanceOf(IllegalStateException.class);
        assertThat(thrownBy(lock::tryLock)).isInstanceOf(IllegalStateException.class);
        assertFreeAfterClose(subject, rival);
    }

    /**
     * What the closed client held is free, and what it waited for once its rival lets go: the closed
     * waiter's leave races the close, so a queued place may hold the name up to the waiter timeout.
     */
    private static void assertFreeAfterClose(Subject subject, LockHandle rival) throws Exception {
        assertThat(takenByAnother(subject, "closed-held")).isTrue();
        rival.release();
        assertThat(takenByAnother(subject, "closed")).isTrue();
        // a close races its own best-effort queue leaves ("could not leave the queue ...: the client is
        // closed"); what they miss goes with the waiter's deadline or the lease, as the WARN says
        await().atMost(Duration.ofSeconds(45)).ignoreExceptions()
                .untilAsserted(() -> servers.assertNothingLeft(subject.topology()));
    }

    // ---- handles: acquireAsync(), acquireAsync(lease), tryAcquireAsync(wait), tryAcquireAsync(wait, lease),
    // ---- release(), releaseAsync(), releaseHoldingAtLeast(d), close(), whenLost()

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleAcquired(Subject subject) throws Exception {
        LockClient client = client(subject);
        Kind kind = subject.kind();
        for (Callable<LockHandle> acquire : List.<Callable<LockHandle>>of(
                () -> kind.acquireAsync(client, "acquired").get(),
                () -> kind.acquireAsync(client, "acquired", Duration.ofSeconds(30)).get(),
                () -> kind.tryAcquireAsync(client, "acquired", Duration.ZERO).get().orElseThrow(),
                () -> kind.tryAcquireAsync(client, "acquired", WAIT, Duration.ofSeconds(30)).get().orElseThrow())) {
            LockHandle handle = acquire.call();
            assertThat(handle.isValid()).isTrue();
            assertThat(handle.fencingToken()).isPositive();
            assertThat(handle.leaseEstimate()).isPositive();
            handle.release();
            assertThat(handle.isValid()).isFalse();
        }
        kind.acquireAsync(client, "acquired").get().releaseAsync().get();
        kind.acquireAsync(client, "acquired").get().releaseHoldingAtLeast(Duration.ZERO);
        try (LockHandle closed = kind.acquireAsync(client, "acquired").get()) {
            assertThat(closed.isValid()).isTrue();
        }
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleBusy(Subject subject) throws Exception {
        LockClient client = client(subject);
        LockHandle rival = subject.kind().rivalHolds(client(subject), "busy");
        assertThat(subject.kind().tryAcquireAsync(client, "busy", Duration.ZERO).get()).isEmpty();
        assertThat(subject.kind().tryAcquireAsync(client, "busy", Duration.ofMillis(50)).get()).isEmpty();
        CompletableFuture<LockHandle> waiting = subject.kind().acquireAsync(client, "busy");
        assertThat(waiting).isNotDone();
        rival.release();
        waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS).release();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleFutureTimedOutOrCancelled(Subject subject) throws Exception {
        LockClient client = client(subject);
        LockHandle rival = subject.kind().rivalHolds(client(subject), "abandoned");
        CompletableFuture<LockHandle> timedOut = subject.kind().acquireAsync(client, "abandoned")
                .orTimeout(20, TimeUnit.MILLISECONDS);
        CompletableFuture<Optional<LockHandle>> cancelled = subject.kind().tryAcquireAsync(client, "abandoned", WAIT);
        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(failureOf(timedOut)).isInstanceOf(TimeoutException.class);
        assertThatThrownBy(cancelled::get).isInstanceOf(CancellationException.class);
        rival.release();
        assertThat(takenByAnother(subject, "abandoned")).as("the abandoned acquires took nothing").isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleGetInterrupted(Subject subject) throws Exception {
        LockClient client = client(subject);
        LockHandle rival = subject.kind().rivalHolds(client(subject), "interrupted");
        CompletableFuture<LockHandle> acquire = subject.kind().acquireAsync(client, "interrupted");
        Call<LockHandle> blocked = new Call<>(acquire::get).parked();
        blocked.thread.interrupt();
        assertThat(blocked.failure()).isInstanceOf(InterruptedException.class);
        assertThat(acquire).as("the acquire goes on: the caller cancels it").isNotDone();
        assertThat(acquire.cancel(false)).isTrue();
        rival.release();
        assertThat(takenByAnother(subject, "interrupted")).isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKindWithServers")
    void handleStoreOutage(Subject subject) throws Exception {
        LockClient client = client(subject);
        LockHandle held = subject.kind().acquireAsync(client, "outage-held", Duration.ofSeconds(5)).get();
        Runnable resume = pause(subject.topology());
        try {
            assertOutageRelease(subject, thrownBy(held::release));
            assertThat(held.isValid()).isFalse();
            assertThat(failureOf(subject.kind().tryAcquireAsync(client, "outage", Duration.ZERO)))
                    .isInstanceOf(LockBackendException.class);
            assertThat(failureOf(subject.kind().tryAcquireAsync(client, "outage", Duration.ofMillis(300))))
                    .isInstanceOf(LockBackendException.class);
            assertThat(failureOf(subject.kind().acquireAsync(client, "outage"))).as("after the outage tolerance")
                    .isInstanceOf(LockBackendException.class);
        } finally {
            resume.run();
        }
        assertThat(takenByAnother(subject, "outage-held")).as("its lease freed it").isTrue();
        assertThat(takenByAnother(subject, "outage")).as("nothing left held by the failed acquires").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleLeaseLost(Subject subject) throws Exception {
        LockHandle handle = subject.kind().tryAcquireAsync(client(subject), "lost", Duration.ZERO, SHORT_LEASE).get()
                .orElseThrow();
        LockLostException loss = handle.whenLost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // a multi-lock's handle carries the highest of its names' tokens, its loss the lost name's
        assertThat(loss.fencingToken()).isPositive().isLessThanOrEqualTo(handle.fencingToken());
        assertThat(handle.isValid()).isFalse();
        assertThat(handle.leaseEstimate()).isZero();
        assertThat(thrownBy(handle::release)).isInstanceOf(LockLostException.class);
        assertThat(thrownBy(handle::release)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(takenByAnother(subject, "lost")).isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleReleasedTwice(Subject subject) throws Exception {
        LockHandle handle = subject.kind().acquireAsync(client(subject), "twice").get();
        handle.release();
        assertThat(thrownBy(handle::release)).isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("released already");
        assertThat(failureOf(handle.releaseAsync())).isExactlyInstanceOf(IllegalMonitorStateException.class);
        handle.close();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleReleasedFromAnotherThread(Subject subject) throws Exception {
        LockHandle handle = subject.kind().acquireAsync(client(subject), "other-thread").get();
        assertThat(new Call<>(() -> {
            handle.release();
            return true;
        }).get()).isTrue();
        assertThat(handle.isValid()).isFalse();
        assertThat(takenByAnother(subject, "other-thread")).isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void handleClientClosed(Subject subject) throws Exception {
        LockClient client = client(subject);
        LockHandle held = subject.kind().acquireAsync(client, "closed-held").get();
        LockHandle rival = subject.kind().rivalHolds(client(subject), "closed");
        CompletableFuture<LockHandle> waiting = subject.kind().acquireAsync(client, "closed");
        client.close();
        assertThat(failureOf(waiting)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(held.isValid()).isFalse();
        assertThat(held.whenLost()).isDone();
        assertThat(thrownBy(held::release)).as("close released it").isInstanceOf(LockLostException.class);
        assertThat(thrownBy(() -> subject.kind().acquireAsync(client, "closed"))).isInstanceOf(IllegalStateException.class);
        assertFreeAfterClose(subject, rival);
    }

    // ---- a semaphore's blocking acquires: acquire(), acquire(lease), acquireUninterruptibly(), tryAcquire(),
    // ---- tryAcquire(wait), tryAcquire(wait, lease), release(permit); the permits are handles (above)

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphores")
    void semaphoreAcquired(Subject subject) throws Exception {
        DistributedSemaphore semaphore = Kind.semaphore(client(subject), "acquired");
        for (Callable<LockHandle> acquire : List.<Callable<LockHandle>>of(semaphore::acquire,
                () -> semaphore.acquire(Duration.ofSeconds(30)), semaphore::acquireUninterruptibly,
                () -> semaphore.tryAcquire().orElseThrow(), () -> semaphore.tryAcquire(WAIT).orElseThrow(),
                () -> semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow())) {
            LockHandle permit = acquire.call();
            assertThat(permit.isValid()).isTrue();
            assertThat(semaphore.availablePermits()).isZero();
            semaphore.release(permit);
            assertThat(permit.isValid()).isFalse();
        }
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphores")
    void semaphoreBusy(Subject subject) throws Exception {
        DistributedSemaphore semaphore = Kind.semaphore(client(subject), "busy");
        LockHandle rival = Kind.SEMAPHORE.rivalHolds(client(subject), "busy");
        assertThat(semaphore.tryAcquire()).isEmpty();
        assertThat(semaphore.tryAcquire(Duration.ofMillis(50))).isEmpty();
        assertThat(semaphore.tryAcquire(Duration.ofMillis(50), Duration.ofSeconds(30))).isEmpty();
        Call<LockHandle> waiting = new Call<>(semaphore::acquire).parked();
        rival.release();
        waiting.get().release();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphores")
    void semaphoreInterrupted(Subject subject) throws Exception {
        DistributedSemaphore semaphore = Kind.semaphore(client(subject), "interrupted");
        LockHandle rival = Kind.SEMAPHORE.rivalHolds(client(subject), "interrupted");
        assertInterrupts(subject, rival, semaphore::acquire, () -> semaphore.tryAcquire(Duration.ofSeconds(30)), () -> {
            LockHandle permit = semaphore.acquireUninterruptibly();
            boolean flagSet = Thread.currentThread().isInterrupted();
            permit.release();
            return flagSet;
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphoresWithServers")
    void semaphoreStoreOutage(Subject subject) throws Exception {
        DistributedSemaphore semaphore = Kind.semaphore(client(subject), "outage");
        DistributedSemaphore heldOne = Kind.semaphore(client(subject), "outage-held");
        LockHandle held = heldOne.acquire(Duration.ofSeconds(5));
        Runnable resume = pause(subject.topology());
        try {
            assertOutageRelease(subject, thrownBy(() -> heldOne.release(held)));
            assertThat(thrownBy(semaphore::tryAcquire)).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ofMillis(300))).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(semaphore::acquire).as("after the outage tolerance").isInstanceOf(LockBackendException.class);
        } finally {
            resume.run();
        }
        assertThat(takenByAnother(subject, "outage-held")).as("its lease freed it").isTrue();
        assertThat(takenByAnother(subject, "outage")).as("nothing left held by the failed acquires").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphores")
    void semaphoreReleasedTwice(Subject subject) throws Exception {
        DistributedSemaphore semaphore = Kind.semaphore(client(subject), "twice");
        LockHandle permit = semaphore.acquire();
        semaphore.release(permit);
        assertThat(thrownBy(() -> semaphore.release(permit))).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(thrownBy(permit::release)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphores")
    void semaphoreClientClosed(Subject subject) throws Exception {
        LockClient client = client(subject);
        DistributedSemaphore semaphore = Kind.semaphore(client, "closed");
        LockHandle held = Kind.semaphore(client, "closed-held").acquire();
        LockHandle rival = Kind.SEMAPHORE.rivalHolds(client(subject), "closed");
        Call<LockHandle> waiting = new Call<>(semaphore::acquire).parked();
        client.close();
        assertThat(waiting.failure()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(thrownBy(held::release)).as("close released it").isInstanceOf(LockLostException.class);
        assertThatThrownBy(semaphore::acquire).isInstanceOf(IllegalStateException.class);
        assertThat(thrownBy(semaphore::tryAcquire)).isInstanceOf(IllegalStateException.class);
        assertFreeAfterClose(subject, rival);
    }
}
