package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a {@link LockObserver} is told, and that an observer cannot break locking. */
class LockObserverTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(3).withRedlockNodeTimeout(Duration.ofSeconds(1));

    /** Every event but script calls, as "method kind name detail". */
    static final class Recorder implements LockObserver {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<String> scripts = new CopyOnWriteArrayList<>();

        @Override
        public Object acquireStarted(LockKind kind, String lockName) {
            events.add("acquireStarted " + kind + " " + lockName);
            return "context of " + lockName;
        }

        @Override
        public void waitStarted(LockKind kind, String lockName) {
            events.add("waitStarted " + kind + " " + lockName);
        }

        @Override
        public void waitEnded(LockKind kind, String lockName) {
            events.add("waitEnded " + kind + " " + lockName);
        }

        @Override
        public void acquireFinished(LockKind kind, String lockName, AcquireOutcome outcome, long waitNanos, Object started) {
            assertThat(waitNanos).isNotNegative();
            events.add("acquireFinished " + kind + " " + lockName + " " + outcome + " [" + started + "]");
        }

        @Override
        public void holdStarted(LockKind kind, String lockName) {
            events.add("holdStarted " + kind + " " + lockName);
        }

        @Override
        public void holdEnded(LockKind kind, String lockName, long heldNanos, HoldEnding ending) {
            events.add("holdEnded " + kind + " " + lockName + " " + ending);
        }

        @Override
        public void lost(LockKind kind, String lockName, LossCause cause) {
            events.add("lost " + kind + " " + lockName + " " + cause);
        }

        @Override
        public void scriptCall(String script, long nanos, boolean ok) {
            scripts.add(script + (ok ? "" : " failed"));
        }
    }

    @Test
    void aHoldIsOneAcquisitionOneHoldAndReentriesAreOnlyScriptCalls() {
        Recorder recorder = new Recorder();
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS, builder -> builder.observer(recorder)).getLock("one");
        lock.lock();
        lock.lock();
        lock.unlock();
        lock.unlock();
        assertThat(recorder.events).containsExactly(
                "acquireStarted REENTRANT one",
                "acquireFinished REENTRANT one ACQUIRED [context of one]",
                "holdStarted REENTRANT one",
                "holdEnded REENTRANT one RELEASED");
        // and before the thread's first acquisition, its name into the client's record
        await().atMost(AWAIT).untilAsserted(() -> assertThat(recorder.scripts)
                .containsExactlyInAnyOrder("record_holder", "acquire", "acquire", "release", "release"));
    }

    @Test
    void aWaitIsToldWhenItStartsAndEnds() throws InterruptedException {
        DistributedLock held = servers.newClient(Topology.ONE_REDIS).getFairLock("queue");
        held.lock();
        Recorder recorder = new Recorder();
        DistributedLock fair = servers.newClient(Topology.ONE_REDIS, builder -> builder.observer(recorder))
                .getFairLock("queue");
        assertThat(fair.tryLock()).isFalse();
        assertThat(fair.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(recorder.events).containsExactly(
                "acquireStarted FAIR queue",
                "acquireFinished FAIR queue BUSY [context of queue]",
                "acquireStarted FAIR queue",
                "waitStarted FAIR queue",
                "waitEnded FAIR queue",
                "acquireFinished FAIR queue TIMED_OUT [context of queue]");
    }

    @Test
    void aLeaseThatRunsOutIsOneLossAndTheHoldEndsOnce() {
        Recorder recorder = new Recorder();
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS, builder -> builder.observer(recorder))
                .getLock("short");
        lock.lock(Duration.ofMillis(300));
        await().atMost(AWAIT).until(() -> recorder.events.contains("holdEnded REENTRANT short LOST"));
        assertThatThrownBy(lock::unlock).isInstanceOfSatisfying(LockLostException.class,
                lost -> assertThat(lost.reason()).isEqualTo(LockObserver.LossCause.EXPIRED));
        assertThat(recorder.events).endsWith("holdStarted REENTRANT short", "lost REENTRANT short EXPIRED",
                "holdEnded REENTRANT short LOST");
    }

    @Test
    void aCancelledAsyncAcquireCountsAsInterrupted() {
        servers.newClient(Topology.ONE_REDIS).getLock("cancelled").lock();
        Recorder recorder = new Recorder();
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS, builder -> builder.observer(recorder))
                .getLock("cancelled");
        var pending = lock.tryAcquireAsync(Duration.ofMinutes(1));
        await().atMost(AWAIT).until(() -> recorder.events.contains("waitStarted REENTRANT cancelled"));
        pending.cancel(false);
        await().atMost(AWAIT).until(() -> recorder.events.contains(
                "acquireFinished REENTRANT cancelled INTERRUPTED [context of cancelled]"));
        assertThat(recorder.events).doesNotContain("holdStarted REENTRANT cancelled");
    }

    @Test
    void anAcquireThatRedisFailsIsAnErrorAndItsScriptCallFailed() {
        Recorder recorder = new Recorder();
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS, builder -> builder.observer(recorder))
                .getLock("down");
        servers.server().kill();
        assertThatThrownBy(lock::tryLock).isInstanceOf(LockBackendException.class);
        assertThat(recorder.events).containsExactly("acquireStarted REENTRANT down",
                "acquireFinished REENTRANT down ERROR [context of down]");
        await().atMost(AWAIT).untilAsserted(() -> assertThat(recorder.scripts).contains("acquire failed"));
    }

    @Test
    void redlockReportsEveryNodesScriptCall() {
        Recorder recorder = new Recorder();
        DistributedLock lock = servers.newClient(Topology.REDLOCK, builder -> builder.observer(recorder))
                .getLock("quorum");
        lock.lock();
        lock.unlock();
        await().atMost(AWAIT).untilAsserted(() -> assertThat(recorder.scripts.stream().filter("acquire"::equals))
                .hasSize(3));
        await().atMost(AWAIT).untilAsserted(() -> assertThat(recorder.scripts.stream().filter("release"::equals))
                .hasSize(3));
        assertThat(recorder.events).containsExactly("acquireStarted REENTRANT quorum",
                "acquireFinished REENTRANT quorum ACQUIRED [context of quorum]", "holdStarted REENTRANT quorum",
                "holdEnded REENTRANT quorum RELEASED");
    }

    @Test
    void anObserverThatThrowsEverywhereBreaksNothing() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        LockObserver failing = new LockObserver() {
            @Override
            public Object acquireStarted(LockKind kind, String lockName) {
                calls.incrementAndGet();
                throw new IllegalStateException("observer broken");
            }

            @Override
            public void acquireFinished(LockKind kind, String lockName, AcquireOutcome outcome, long waitNanos,
                                        Object started) {
                calls.incrementAndGet();
                throw new IllegalStateException("observer broken");
            }

            @Override
            public void holdStarted(LockKind kind, String lockName) {
                calls.incrementAndGet();
                throw new IllegalStateException("observer broken");
            }

            @Override
            public void holdEnded(LockKind kind, String lockName, long heldNanos, HoldEnding ending) {
                calls.incrementAndGet();
                throw new IllegalStateException("observer broken");
            }

            @Override
            public void scriptCall(String script, long nanos, boolean ok) {
                calls.incrementAndGet();
                throw new IllegalStateException("observer broken");
            }
        };
        Recorder after = new Recorder();
        LockClient client = servers.newClient(Topology.ONE_REDIS, builder -> builder.observer(failing).observer(after));
        DistributedLock lock = client.getLock("sturdy");
        for (int i = 0; i < 3; i++) {
            lock.lock();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();
        }
        Optional<LockHandle> handle = lock.tryAcquireAsync(Duration.ofSeconds(5)).get(20, TimeUnit.SECONDS);
        assertThat(handle).isPresent();
        handle.get().release();
        assertThat(lock.isLocked()).isFalse();
        assertThat(calls.get()).isGreaterThanOrEqualTo(16);
        // the observer added after the failing one is still told everything
        assertThat(after.events.stream().filter(event -> event.startsWith("holdEnded"))).hasSize(4);
    }
}
