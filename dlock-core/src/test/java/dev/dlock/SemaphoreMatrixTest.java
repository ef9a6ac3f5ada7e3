package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * The behaviour matrix of docs/locks.md for a semaphore's blocking acquires (its permits are
 * handles: {@link HandleMatrixTest}): acquired, busy, interrupted, store outage, released twice,
 * client closed, on every store: in memory, one Redis, PostgreSQL and ZooKeeper; an outage on the
 * stores with servers. Servers are shared by the class.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SemaphoreMatrixTest extends BehaviourMatrix {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis().withInMemory().withPostgres().withZooKeeper();

    static Stream<Subject> semaphores() {
        return subjects(List.of(Kind.SEMAPHORE), servers.topologies());
    }

    static Stream<Subject> semaphoresWithServers() {
        return subjects(List.of(Kind.SEMAPHORE), withServers());
    }

    @Override
    LockServers servers() {
        return servers;
    }

    // ---- a semaphore's blocking acquires: acquire(), acquire(lease), acquireUninterruptibly(), tryAcquire(),
    // ---- tryAcquire(wait), tryAcquire(wait, lease), release(permit); the permits are handles (HandleMatrixTest)

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
        granted(servers, subject, waiting.result).release();
        servers.assertNothingLeft(subject.topology());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("semaphores")
    void semaphoreInterrupted(Subject subject) throws Exception {
        DistributedSemaphore semaphore = Kind.semaphore(client(subject), "interrupted");
        LockHandle rival = Kind.SEMAPHORE.rivalHolds(client(subject), "interrupted");
        assertInterrupts(servers, subject, rival, semaphore::acquire, () -> semaphore.tryAcquire(Duration.ofSeconds(30)), () -> {
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
        assertFreeAfterClose(servers, subject, rival);
    }
}
