package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockBackendException;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.redis.SingleNodeStore;
import dev.dlock.internal.settings.ReplicaAcks;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.TestSettings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** What the one-Redis store does with the replicas' acknowledgements, on an in-memory node. */
class SingleNodeStoreAcksTest {

    private static final LockTarget TARGET = LockTarget.of("dlock:", "orders");

    private static SingleNodeStore store(FakeNode node, boolean acks) {
        Settings settings = TestSettings.settings("redis://fake:6379", null, null, null, null, null, null,
                acks ? ReplicaAcks.of(1, Duration.ofMillis(50)) : null);
        return new SingleNodeStore(node, settings, Ticker.system(), false);
    }

    private static AcquireRequest request(boolean reentry) {
        return new AcquireRequest("owner-1", 30_000, "holder", reentry, "", 5_000, false, 0, "");
    }

    @Test
    void withoutAcksNothingIsAwaitedAndTheHandoffIsOffered() {
        FakeNode node = new FakeNode("redis://fake:6379").on(LuaScript.ACQUIRE, FakeNode.granted(7));
        SingleNodeStore store = store(node, false);
        assertThat(store.acquire(TARGET, LockKind.REENTRANT, request(false)).join()).isInstanceOf(AcquireReply.Granted.class);
        assertThat(node.waits()).isEmpty();
        assertThat(store.handoff()).isPresent();
        // the floor key and its TTL go with every grant
        FakeNode.Call call = node.calls(LuaScript.ACQUIRE).get(0);
        assertThat(call.keys()).containsExactly("dlock:{orders}", "dlock:{orders}:queue", "dlock:{orders}:waiters",
                "dlock:token-floor");
        // acquire.lua's ARGV[4]
        assertThat(call.args().get(3)).isEqualTo(Long.toString(Duration.ofMinutes(10).toMillis()));
    }

    @Test
    void anAcknowledgedGrantIsGrantedAfterOneWaitOnItsKey() {
        FakeNode node = new FakeNode("redis://fake:6379").on(LuaScript.ACQUIRE, FakeNode.granted(7))
                .onWait(FakeNode.reply(1L));
        SingleNodeStore store = store(node, true);
        assertThat(store.acquire(TARGET, LockKind.REENTRANT, request(false)).join()).isInstanceOf(AcquireReply.Granted.class);
        assertThat(node.waits()).containsExactly(List.of("dlock:{orders}", "1", "50"));
        assertThat(node.calls(LuaScript.ABANDON)).isEmpty();
        assertThat(store.handoff()).as("every grant goes through a WAIT").isEmpty();
    }

    @Test
    void aRefusalIsNotAwaited() {
        FakeNode node = new FakeNode("redis://fake:6379").on(LuaScript.ACQUIRE, FakeNode.busy(100));
        assertThat(store(node, true).acquire(TARGET, LockKind.REENTRANT, request(false)).join())
                .isInstanceOf(AcquireReply.Busy.class);
        assertThat(node.waits()).isEmpty();
    }

    @Test
    void anUnacknowledgedFreshGrantIsGivenBackAndFails() {
        FakeNode node = new FakeNode("redis://fake:6379").on(LuaScript.ACQUIRE, FakeNode.granted(7));
        assertThatThrownBy(() -> store(node, true).acquire(TARGET, LockKind.REENTRANT, request(false)).join())
                .isInstanceOf(CompletionException.class).cause().isInstanceOf(LockBackendException.class)
                .hasMessage("lock 'orders' acquired on redis://fake:6379 but only 0 of 1 replicas acknowledged "
                        + "within 50 ms; released");
        assertThat(node.calls(LuaScript.ABANDON)).hasSize(1);
        assertThat(node.calls(LuaScript.ABANDON).get(0).args().get(0)).isEqualTo("owner-1");
    }

    @Test
    void anUnacknowledgedReentryFailsButKeepsTheOuterHold() {
        FakeNode node = new FakeNode("redis://fake:6379").on(LuaScript.ACQUIRE, FakeNode.granted(7));
        assertThatThrownBy(() -> store(node, true).acquire(TARGET, LockKind.REENTRANT, request(true)).join())
                .cause().isInstanceOf(LockBackendException.class)
                .hasMessageContaining("re-entry of lock 'orders' on redis://fake:6379 not counted: only 0 of 1 replicas")
                .hasMessageEndingWith("; the outer hold is kept");
        assertThat(node.calls(LuaScript.ABANDON)).isEmpty();
    }

    @Test
    void renewalsCountOnlyOnceAcknowledgedWithOneWaitPerBatch() {
        List<HeldLock> holds = List.of(new HeldLock(TARGET, LockKind.REENTRANT, "o1", 7, 1, "h"),
                new HeldLock(LockTarget.of("dlock:", "other"), LockKind.REENTRANT, "o2", 8, 1, "h"));
        FakeNode acked = new FakeNode("redis://fake:6379").on(LuaScript.RENEW, FakeNode.reply(List.of(1L, 0L)))
                .onWait(FakeNode.reply(1L));
        assertThat(store(acked, true).renew(holds, 30_000).join()).containsExactly(Renewal.RENEWED, Renewal.GONE);
        assertThat(acked.waits()).hasSize(1);

        FakeNode unacked = new FakeNode("redis://fake:6379").on(LuaScript.RENEW, FakeNode.reply(List.of(1L, 1L)));
        // nothing counted: the watchdog is told why (its holds stay unknown, their validity not moved)
        assertThatThrownBy(() -> store(unacked, true).renew(holds, 30_000).join())
                .hasRootCauseInstanceOf(LockBackendException.class)
                .rootCause().hasMessage("renewal of 2 hold(s) on redis://fake:6379 not counted: only 0 of 1 replicas"
                        + " acknowledged within 50 ms");

        FakeNode allGone = new FakeNode("redis://fake:6379").on(LuaScript.RENEW, FakeNode.reply(List.of(0L, 0L)));
        assertThat(store(allGone, true).renew(holds, 30_000).join()).containsExactly(Renewal.GONE, Renewal.GONE);
        assertThat(allGone.waits()).as("nothing renewed, nothing to wait for").isEmpty();
    }
}
