package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.redis.QuorumStore;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.TestSettings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.NodeFailure;
import dev.dlock.internal.store.Renewal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Redlock's quorum decisions, on in-memory nodes: no Redis server involved. */
class QuorumStoreTest {

    private static final LockTarget TARGET = LockTarget.of("dlock:", "orders");
    private static final long LEASE_MS = 30_000;

    enum Outcome { GRANTED, REFUSED, FAILED }

    /** Every combination of node outcomes over 3 and 5 nodes. */
    static Stream<Arguments> combinations() {
        List<Arguments> all = new ArrayList<>();
        for (int size : new int[] {3, 5}) {
            int combinations = (int) Math.pow(3, size);
            for (int code = 0; code < combinations; code++) {
                List<Outcome> outcomes = new ArrayList<>();
                for (int i = 0, rest = code; i < size; i++, rest /= 3) {
                    outcomes.add(Outcome.values()[rest % 3]);
                }
                all.add(Arguments.of(outcomes));
            }
        }
        return all.stream();
    }

    @ParameterizedTest
    @MethodSource("combinations")
    void acquireIsDecidedByTheMajority(List<Outcome> outcomes) {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            FakeNode node = new FakeNode("redis://node" + i + ":6379");
            node.on(LuaScript.ACQUIRE, switch (outcomes.get(i)) {
                case GRANTED -> FakeNode.granted(1000 + i);
                case REFUSED -> FakeNode.busy(100 + i);
                case FAILED -> FakeNode.errorReply("ERR node " + i + " is broken");
            });
            nodes.add(node);
        }
        int quorum = outcomes.size() / 2 + 1;
        // the replies come in node order here; the attempt is decided as soon as they allow it
        int decidedAt = 0;
        int granted = 0;
        int refused = 0;
        int failed = 0;
        while (granted < quorum && outcomes.size() - refused - failed >= quorum) {
            switch (outcomes.get(decidedAt++)) {
                case GRANTED -> granted++;
                case REFUSED -> refused++;
                case FAILED -> failed++;
            }
        }
        List<Outcome> counted = outcomes.subList(0, decidedAt);
        CompletableFuture<AcquireReply> reply = store(nodes).acquire(TARGET, LockKind.REENTRANT, request());

        if (granted >= quorum) {
            AcquireReply.Granted grant = (AcquireReply.Granted) reply.join();
            assertThat(grant.token()).as("the highest token of the granting nodes")
                    .isEqualTo(1000 + counted.lastIndexOf(Outcome.GRANTED));
            assertThat(abandonsSent(nodes)).as("a won attempt is not given back").isZero();
            return;
        }
        if (outcomes.size() - failed < quorum) {
            int failures = failed;
            assertThatThrownBy(reply::join).cause().isInstanceOfSatisfying(LockBackendException.class, failure -> {
                assertThat(failure).hasMessageContaining("no quorum reachable (need " + quorum + " of " + outcomes.size());
                assertThat(failure.lockName()).contains("orders");
                assertThat(failure.nodeErrors()).hasSize(failures)
                        .allSatisfy(error -> assertThat(error.cause()).isEqualTo(NodeError.Cause.ERROR_REPLY));
                assertThat(failure.getSuppressed()).hasSize(failures).allMatch(NodeFailure.class::isInstance);
                for (int i = 0; i < counted.size(); i++) {
                    String described = "redis://node" + i + ":6379: error reply: ERR node " + i + " is broken";
                    if (counted.get(i) == Outcome.FAILED) {
                        assertThat(failure).hasMessageContaining(described);
                    } else {
                        assertThat(failure).hasMessageNotContaining("node" + i + ":");
                    }
                }
            });
        } else {
            AcquireReply.Busy busy = (AcquireReply.Busy) reply.join();
            assertThat(busy.split()).as("split when some node granted").isEqualTo(granted > 0);
            assertThat(busy.retryAfterMs()).as("the shortest retry hint").isEqualTo(100 + counted.indexOf(Outcome.REFUSED));
        }
        // every node that did not refuse (or has not answered yet) may hold a copy: it is given back there
        for (int i = 0; i < outcomes.size(); i++) {
            boolean sawRefusal = i < decidedAt && outcomes.get(i) == Outcome.REFUSED;
            assertThat(nodes.get(i).calls(LuaScript.ABANDON)).as("abandon on node %d", i).hasSize(sawRefusal ? 0 : 1);
        }
    }

    @Test
    void aSilentNodeDoesNotDelayAMajorityAndIsReportedAsATimeout() {
        List<FakeNode> nodes = List.of(
                new FakeNode("redis://a:1").on(LuaScript.ACQUIRE, FakeNode.granted(7)),
                new FakeNode("redis://b:1").on(LuaScript.ACQUIRE, FakeNode.granted(8)),
                new FakeNode("redis://c:1").on(LuaScript.ACQUIRE, FakeNode.silent()));
        assertThat(store(nodes, 60_000).acquire(TARGET, LockKind.REENTRANT, request()).join())
                .isInstanceOf(AcquireReply.Granted.class);

        nodes.get(1).on(LuaScript.ACQUIRE, FakeNode.silent());
        nodes.get(2).setConnected(false);
        assertThatThrownBy(() -> store(nodes, 50).acquire(TARGET, LockKind.REENTRANT, request()).join())
                .cause().isInstanceOfSatisfying(LockBackendException.class, failure -> {
                    assertThat(failure).hasMessageContaining("redis://b:1: timed out after 50 ms;")
                            .hasMessageContaining("redis://c:1: timed out after 50 ms (not connected: unreachable)");
                    assertThat(failure.nodeErrors()).extracting(NodeError::address, NodeError::cause).containsExactly(
                            org.assertj.core.groups.Tuple.tuple("redis://b:1", NodeError.Cause.TIMEOUT),
                            org.assertj.core.groups.Tuple.tuple("redis://c:1", NodeError.Cause.TIMEOUT));
                    assertThat(failure.nodeErrors().get(0).cause().outcomeUnknown()).isTrue();
                });
    }

    @Test
    void validityIsTheLeaseLessTheTimeSpentAndTheDrift() {
        QuorumStore store = store(List.of(new FakeNode("redis://a:1"), new FakeNode("redis://b:1"),
                new FakeNode("redis://c:1")));
        long drift = 10_000 / 100 + 2;
        assertThat(store.validUntilNanos(5_000, 10_000)).isEqualTo(5_000 + TimeUnit.MILLISECONDS.toNanos(10_000 - drift));

        List<FakeNode> nodes = List.of(new FakeNode("redis://a:1").on(LuaScript.ACQUIRE, FakeNode.granted(1)),
                new FakeNode("redis://b:1").on(LuaScript.ACQUIRE, FakeNode.granted(1)),
                new FakeNode("redis://c:1").on(LuaScript.ACQUIRE, FakeNode.granted(1)));
        long before = System.nanoTime();
        AcquireReply.Granted grant = (AcquireReply.Granted) store(nodes).acquire(TARGET, LockKind.REENTRANT, request()).join();
        assertThat(grant.validUntilNanos()).isBetween(before + TimeUnit.MILLISECONDS.toNanos(LEASE_MS - LEASE_MS / 100 - 2),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LEASE_MS - LEASE_MS / 100 - 2));
    }

    @Test
    void aGrantThatCameTooLateForItsLeaseIsGivenBackEverywhere() {
        List<FakeNode> nodes = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            nodes.add(new FakeNode("redis://" + name + ":1").on(LuaScript.ACQUIRE, FakeNode.delayed(30, FakeNode.granted(1))));
        }
        // a 20 ms lease has a validity of 20 - 2 ms: gone before 30 ms of replies
        AcquireRequest shortLease = new AcquireRequest("owner:1", 20, "holder", false, "", 0, true, 0, "");
        AcquireReply reply = store(nodes, 1_000).acquire(TARGET, LockKind.REENTRANT, shortLease).join();
        assertThat(reply).isEqualTo(new AcquireReply.Busy(0, true, 0));
        assertThat(abandonsSent(nodes)).isEqualTo(3);
    }

    @Test
    void releaseIsDecidedByTheMajority() {
        assertThat(release(0L, 0L, 0L, -1L, -1L)).isZero();
        assertThat(release(1L, 0L, 1L, -1L, 0L)).as("re-entries left").isEqualTo(1);
        assertThat(release(-1L, -1L, -1L, 0L, 0L)).as("no longer the owner's").isEqualTo(-1);
        assertThatThrownBy(() -> release(0L, 0L, null, null, null)).cause()
                .isInstanceOfSatisfying(LockBackendException.class, failure -> {
                    assertThat(failure).hasMessageStartingWith("release outcome unknown for lock 'orders': 2 of 5 nodes"
                            + " released it, 3 needed; redis://node2:1: unreachable: Connection refused");
                    assertThat(failure.nodeErrors()).hasSize(3)
                            .allSatisfy(error -> assertThat(error.cause()).isEqualTo(NodeError.Cause.UNREACHABLE));
                    assertThat(failure.getSuppressed()).hasSize(3);
                });
    }

    /** @param replies per node, release.lua's reply, or null for an unreachable node */
    private static long release(Long... replies) {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 0; i < replies.length; i++) {
            nodes.add(new FakeNode("redis://node" + i + ":1").on(LuaScript.RELEASE,
                    replies[i] == null ? FakeNode.unreachable() : FakeNode.reply(replies[i])));
        }
        return store(nodes).release(TARGET, LockKind.REENTRANT, "owner:1", 42).join();
    }

    @Test
    void renewalIsPerHoldAndPutsTheHoldBackWhereItWasMissing() {
        HeldLock kept = new HeldLock(TARGET, LockKind.REENTRANT, "owner:1", 42, 2, "holder");
        HeldLock gone = new HeldLock(LockTarget.of("dlock:", "gone"), LockKind.REENTRANT, "owner:2", 43, 1, "holder");
        List<FakeNode> nodes = List.of(
                new FakeNode("redis://a:1").on(LuaScript.RENEW, FakeNode.reply(List.of(1L, 0L))),
                new FakeNode("redis://b:1").on(LuaScript.RENEW, FakeNode.reply(List.of(1L, -1L))),
                new FakeNode("redis://c:1").on(LuaScript.RENEW, FakeNode.reply(List.of(0L, 0L))));
        Renewal[] outcome = store(nodes).renew(List.of(kept, gone), LEASE_MS).join();
        assertThat(outcome).containsExactly(Renewal.RENEWED, Renewal.GONE);
        assertThat(nodes.get(2).calls(LuaScript.REASSERT)).singleElement()
                .satisfies(call -> assertThat(call.args()).containsExactly("owner:1", "30000", "42", "2", "holder", ""));
        assertThat(nodes.get(0).calls(LuaScript.REASSERT)).isEmpty();

        nodes.get(1).on(LuaScript.RENEW, FakeNode.unreachable());
        assertThat(store(nodes).renew(List.of(kept, gone), LEASE_MS).join())
                .as("1 renewed, 1 gone, 1 failed: unknown; 2 gone: gone")
                .containsExactly(Renewal.UNKNOWN, Renewal.GONE);
    }

    private static int abandonsSent(List<FakeNode> nodes) {
        return nodes.stream().mapToInt(node -> node.calls(LuaScript.ABANDON).size()).sum();
    }

    private static AcquireRequest request() {
        return new AcquireRequest("owner:1", LEASE_MS, "holder", false, "", 0, true, 0, "");
    }

    private static QuorumStore store(List<FakeNode> nodes) {
        return store(nodes, 1_000);
    }

    private static QuorumStore store(List<FakeNode> nodes, long nodeTimeoutMs) {
        Settings settings = TestSettings.settings(null, List.of("redis://a:1", "redis://b:1", "redis://c:1"), null,
                Duration.ofMillis(nodeTimeoutMs), Duration.ofSeconds(3), null, null, null);
        return new QuorumStore(List.copyOf(nodes), settings, Ticker.system());
    }
}
