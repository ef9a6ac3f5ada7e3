package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour matrix of docs/locks.md for handles: each test is one situation (acquired, busy,
 * the caller's future timed out or cancelled, interrupted, store outage, lease lost, released twice,
 * released from another thread, client closed) for every kind, a semaphore's permit included, on
 * every store: in memory, one Redis, PostgreSQL and ZooKeeper; an outage on the stores with servers.
 * Servers are shared by the class.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class HandleMatrixTest extends BehaviourMatrix {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis().withInMemory().withPostgres().withZooKeeper();

    static Stream<Subject> everyKind() {
        return subjects(List.of(Kind.values()), servers.topologies());
    }

    static Stream<Subject> everyKindWithServers() {
        return subjects(List.of(Kind.values()), withServers());
    }

    @Override
    LockServers servers() {
        return servers;
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
        granted(servers, subject, waiting).release();
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
        assertFreeAfterClose(servers, subject, rival);
    }
}
