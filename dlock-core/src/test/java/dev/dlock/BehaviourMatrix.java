package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;

/**
 * What the three classes of the behaviour matrix of docs/locks.md share: the kinds, the subjects
 * (a kind on a store) and the checks. The matrix is split by family of methods (thread-bound:
 * {@link ThreadBoundMatrixTest}; handles: {@link HandleMatrixTest}; a semaphore's blocking
 * acquires: {@link SemaphoreMatrixTest}) so that the build's test JVMs run its families side by
 * side; each class starts its own servers.
 */
abstract class BehaviourMatrix {

    static final Duration WAIT = Duration.ofSeconds(10);
    static final Duration SHORT_LEASE = Duration.ofMillis(300);
    static final List<Kind> LOCK_KINDS = List.of(Kind.LOCK, Kind.FAIR, Kind.READ, Kind.WRITE, Kind.MULTI);

    /** @return the servers of the test class, shared by its tests */
    abstract LockServers servers();

    /** Whatever a test left paused runs again before the servers are cleaned for the next one. */
    private Runnable resumeAfterTest = () -> { };

    @AfterEach
    void resumeTheStore() {
        resumeAfterTest.run();
    }

    /** Pauses the store of {@code topology} until the returned resume runs, or the test ends. */
    Runnable pause(Topology topology) {
        Runnable resume = servers().pauseStore(topology);
        resumeAfterTest = resume;
        return resume;
    }

    LockClient client(Subject subject) {
        return client(servers(), subject);
    }

    boolean takenByAnother(Subject subject, String name) throws Exception {
        return takenByAnother(servers(), subject, name);
    }

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

    /**
     * Where an outage is made by pausing the servers: one Redis, PostgreSQL and ZooKeeper (LockServers.pauseStore
     * pauses the whole ensemble). In memory there is none.
     */
    static List<Topology> withServers() {
        return List.of(Topology.ONE_REDIS, Topology.POSTGRES, Topology.ZOOKEEPER);
    }

    static Stream<Subject> subjects(List<Kind> kinds, List<Topology> topologies) {
        return topologies.stream().flatMap(topology -> kinds.stream().map(kind -> new Subject(kind, topology)));
    }

    /** A client whose store failures show within seconds: 1 s per command, 1 s of outage tolerance. */
    static LockClient client(LockServers servers, Subject subject) {
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
    static void assertOutageRelease(Subject subject, RuntimeException thrown) {
        if (subject.topology() == Topology.ZOOKEEPER && thrown instanceof LockLostException) {
            return;
        }
        assertThat(thrown).isInstanceOf(LockBackendException.class);
    }

    /** A call on a thread of its own, to be interrupted or to wait. */
    static final class Call<T> {
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

    static RuntimeException thrownBy(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("nothing was thrown");
    }

    /** Whether another client takes the name (for a read lock: as a writer) within the wait, and gives it back. */
    static boolean takenByAnother(LockServers servers, Subject subject, String name) throws Exception {
        Kind probe = subject.kind() == Kind.READ ? Kind.WRITE : subject.kind();
        Optional<LockHandle> taken = probe.tryAcquireAsync(servers.newClient(subject.topology()), name, WAIT)
                .get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
        taken.ifPresent(LockHandle::release);
        return taken.isPresent();
    }

    /**
     * What {@code waiting} completes with within the wait; else fails naming the subject and what the
     * store holds (a waiter that is never granted leaves a trace there: a queue entry, a node).
     */
    static <T> T granted(LockServers servers, Subject subject, CompletableFuture<T> waiting) throws Exception {
        try {
            return waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(subject + ": the waiter was not granted within " + WAIT + " of the rival's release;"
                    + " the store holds:\n" + servers.contents(subject.topology()), e);
        }
    }

    static Throwable failureOf(CompletableFuture<?> future) {
        assertThatThrownBy(() -> future.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        return future.handle((ok, error) -> error).join();
    }

    /**
     * Three callers wait for what the rival holds and are interrupted: the interruptible and the
     * bounded one throw InterruptedException, leaving nothing; the uninterruptible one goes on
     * waiting and, once the rival releases, returns (true) with its interrupt flag set.
     */
    static void assertInterrupts(LockServers servers, Subject subject, LockHandle rival, Callable<?> interruptible, Callable<?> bounded,
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


    /**
     * What the closed client held is free, and what it waited for once its rival lets go: the closed
     * waiter's leave races the close, so a queued place may hold the name up to the waiter timeout.
     */
    static void assertFreeAfterClose(LockServers servers, Subject subject, LockHandle rival) throws Exception {
        assertThat(takenByAnother(servers, subject, "closed-held")).isTrue();
        rival.release();
        assertThat(takenByAnother(servers, subject, "closed")).isTrue();
        // a close races its own best-effort queue leaves ("could not leave the queue ...: the client is
        // closed"); what they miss goes with the waiter's deadline or the lease, as the WARN says
        await().atMost(Duration.ofSeconds(45)).ignoreExceptions()
                .untilAsserted(() -> servers.assertNothingLeft(subject.topology()));
    }

}
