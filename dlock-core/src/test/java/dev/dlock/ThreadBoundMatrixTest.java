package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour matrix of docs/locks.md for the thread-bound methods: each test is one situation
 * (acquired, busy, interrupted, store outage, lease lost, released twice, released from another
 * thread, client closed) for every lock kind on every store: in memory, one Redis, PostgreSQL and
 * ZooKeeper; an outage on the stores with servers ({@link BehaviourMatrix#withServers()}). Servers
 * are shared by the class.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ThreadBoundMatrixTest extends BehaviourMatrix {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis().withInMemory().withPostgres().withZooKeeper();

    static Stream<Subject> locks() {
        return subjects(LOCK_KINDS, servers.topologies());
    }

    static Stream<Subject> locksWithServers() {
        return subjects(LOCK_KINDS, withServers());
    }

    @Override
    LockServers servers() {
        return servers;
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
        assertThat(granted(servers, subject, waiting.result)).isTrue();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("locks")
    void threadBoundInterrupted(Subject subject) throws Exception {
        DistributedLock lock = subject.kind().lock(client(subject), "interrupted");
        LockHandle rival = subject.kind().rivalHolds(client(subject), "interrupted");
        assertInterrupts(servers, subject, rival, () -> {
            lock.lockInterruptibly();
            return true;
        }, () -> lock.tryLock(30, TimeUnit.SECONDS), () -> {
            lock.lock();
            boolean flagSet = Thread.currentThread().isInterrupted();
            lock.unlock();
            return flagSet;
        });
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
        assertFreeAfterClose(servers, subject, rival);
    }
}
