package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.lettuce.RedisStores;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.settings.TestSettings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The acquire loop over one in-memory node: no Redis server involved. */
class AcquisitionTest {

    private final FakeNode node = new FakeNode("redis://fake:6379");
    private final LockEngine engine = new LockEngine(TestSettings.settings(null, null, null, null,
            Duration.ofSeconds(3), Duration.ofSeconds(10), "test", null), RedisStores.on(List.of(node), () -> { }), List.of(), Ticker.system());
    private final LockTarget target = engine.target("orders");

    @AfterEach
    void close() {
        engine.close();
    }

    /** The channels subscribed for waiters: the client's own holder channel is always there. */
    private List<String> lockChannels() {
        return node.subscriptions().stream().filter(channel -> !channel.startsWith("dlock:client:")).toList();
    }

    private Acquisition acquire(long waitNanos) {
        return engine.acquire(target, LockKind.REENTRANT, 30_000, waitNanos, "");
    }

    @Test
    void aBusyLockIsWaitedForAndTakenWhenItsReleaseMessageComes() {
        // held for a minute: only the release message can end this wait in time
        node.on(LuaScript.ACQUIRE, FakeNode.busy(60_000));
        Acquisition acquisition = acquire(-1);

        // refused, subscribed, asked again (a release between the two would have been caught), waiting
        await().atMost(Duration.ofSeconds(5)).until(() -> node.calls(LuaScript.ACQUIRE).size() == 2);
        assertThat(lockChannels()).containsExactly(target.channel());
        assertThat(acquisition.result()).isNotDone();

        node.on(LuaScript.ACQUIRE, FakeNode.granted(77));
        assertThat(node.publish(target.channel(), "76")).isTrue();
        AcquireReply.Granted grant = acquisition.result().orTimeout(5, TimeUnit.SECONDS).join();
        assertThat(grant.token()).isEqualTo(77);
        assertThat(node.calls(LuaScript.ACQUIRE)).hasSize(3)
                .extracting(call -> call.args().get(0)).as("a fresh owner id per attempt").doesNotHaveDuplicates();
        assertThat(acquisition.attempts().owner()).isEqualTo(node.calls(LuaScript.ACQUIRE).get(2).args().get(0));
        await().atMost(Duration.ofSeconds(5)).until(() -> lockChannels().isEmpty());
    }

    @Test
    void theRetryHintEndsTheWaitWhenNoMessageComes() {
        node.on(LuaScript.ACQUIRE, FakeNode.busy(20), FakeNode.busy(20), FakeNode.granted(5));
        assertThat(acquire(-1).result().orTimeout(5, TimeUnit.SECONDS).join().token()).isEqualTo(5);
    }

    @Test
    void anAttemptCutOffByTheWaitsBoundIsReleasedAtOnceAndItsLateGrantGivenBack() {
        CompletableFuture<Object> late = new CompletableFuture<>();
        node.on(LuaScript.ACQUIRE, (node, keys, args) -> late);
        Acquisition acquisition = acquire(0);

        assertThat(acquisition.result()).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(LockBackendException.class)
                .withMessageContaining("acquire outcome unknown for lock 'orders': Redis did not answer within the wait of 0 ms");
        String owner = node.calls(LuaScript.ACQUIRE).get(0).args().get(0);
        assertThat(node.calls(LuaScript.ABANDON)).extracting(call -> call.args().get(0)).containsExactly(owner);

        late.complete(List.of(1L, "9", 1L));
        await().atMost(Duration.ofSeconds(5)).until(() -> node.calls(LuaScript.ABANDON).size() == 2);
        assertThat(node.calls(LuaScript.ABANDON).get(1).args().get(0)).isEqualTo(owner);
    }

    @Test
    void theDeadlineEndsTheWaitWithoutAGrant() {
        node.on(LuaScript.ACQUIRE, FakeNode.busy(60_000));
        Acquisition acquisition = acquire(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(acquisition.result().orTimeout(5, TimeUnit.SECONDS).join()).isNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> lockChannels().isEmpty());
    }

    @Test
    void cancelEndsAnUnboundedWait() {
        node.on(LuaScript.ACQUIRE, FakeNode.busy(60_000));
        Acquisition acquisition = acquire(-1);
        await().atMost(Duration.ofSeconds(5)).until(() -> node.calls(LuaScript.ACQUIRE).size() == 2);
        acquisition.cancel();
        assertThat(acquisition.result().orTimeout(5, TimeUnit.SECONDS).join()).isNull();
        assertThat(node.calls(LuaScript.ACQUIRE)).hasSize(2);
    }

    @Test
    void aFailedAttemptFailsTheAcquisitionWithTheNodeFailure() {
        node.on(LuaScript.ACQUIRE, FakeNode.errorReply("ERR something is wrong"));
        Acquisition acquisition = acquire(-1);
        assertThat(acquisition.result()).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                .havingCause().isInstanceOfSatisfying(LockBackendException.class, failure -> {
                    assertThat(failure).hasMessage("acquire failed for lock 'orders' on redis://fake:6379: "
                            + "Redis replied with an error: ERR something is wrong");
                    assertThat(failure.lockName()).contains("orders");
                    assertThat(failure.nodeErrors()).containsExactly(new NodeError("redis://fake:6379",
                            NodeError.Cause.ERROR_REPLY, "ERR something is wrong"));
                });
        assertThat(node.calls(LuaScript.ABANDON)).as("an error reply is no unknown outcome: nothing to give back").isEmpty();
    }
}
