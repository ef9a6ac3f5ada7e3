package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redlock over 5 real, independent redis-server processes. */
class RedlockTest {

    @RegisterExtension
    static final LockServers servers = LockServers.redlock(5);

    private static void takeByAnotherOwner(RedisServer server, String name) {
        server.command("HSET", "dlock:{" + name + "}", "o", "someone-else", "c", "1", "t", "1", "h", "other");
        server.command("PEXPIRE", "dlock:{" + name + "}", "30000");
    }

    /**
     * Redlock's waiters are never queued in Redis, so neither an acquire nor a release looks at a
     * queue: a release that did would cost every node a call per release for nothing.
     */
    @Test
    void acquireAndReleaseLookAtNoWaiterQueue() {
        LockClient client = servers.newClient(Duration.ofSeconds(10));
        DistributedLock lock = client.getLock("no-queue");
        List<String> queueCommands = List.of("zrange", "zscore", "zadd", "exists");
        long[] scriptsBefore = new long[5];
        long[] queueCallsBefore = new long[5];
        for (int node = 0; node < 5; node++) {
            scriptsBefore[node] = CommandStats.scriptCalls(servers.master(node));
            queueCallsBefore[node] = queueCalls(servers.master(node), queueCommands);
        }
        int pairs = 20;
        for (int i = 0; i < pairs; i++) {
            lock.lock();
            lock.unlock();
        }
        for (int node = 0; node < 5; node++) {
            RedisServer server = servers.master(node);
            long before = scriptsBefore[node];
            // the last releases on the two slowest nodes may still be on their way
            await().atMost(Duration.ofSeconds(5)).until(() -> CommandStats.scriptCalls(server) - before >= 2L * pairs);
            assertThat(queueCalls(server, queueCommands) - queueCallsBefore[node])
                    .as("queue commands (%s) run on node %d", queueCommands, node).isZero();
        }
    }

    private static long queueCalls(RedisServer server, List<String> commands) {
        return commands.stream().mapToLong(command -> CommandStats.calls(server, command)).sum();
    }

    @Test
    void acquiresExactlyWhenAtMostTwoOfFiveNodesAreTakenElsewhere() throws Exception {
        LockClient client = servers.newClient(Duration.ofSeconds(10));
        for (int taken = 0; taken < 32; taken++) {
            String name = "combination-" + taken;
            for (int node = 0; node < 5; node++) {
                if ((taken & (1 << node)) != 0) {
                    takeByAnotherOwner(servers.master(node), name);
                }
            }
            DistributedLock lock = client.getLock(name);
            boolean expected = Integer.bitCount(taken) <= 2;
            assertThat(lock.tryLock()).as("nodes taken: %s", Integer.toBinaryString(taken)).isEqualTo(expected);
            if (expected) {
                lock.unlock();
                for (int node = 0; node < 5; node++) {
                    boolean takenHere = (taken & (1 << node)) != 0;
                    // our copies are gone everywhere; the other owner's copies are untouched
                    assertThat(servers.master(node).command("HGET", "dlock:{" + name + "}", "o"))
                            .isEqualTo(takenHere ? "someone-else" : null);
                }
            } else {
                for (int node = 0; node < 5; node++) {
                    boolean takenHere = (taken & (1 << node)) != 0;
                    RedisServer server = servers.master(node);
                    // a failed attempt is released on every node it reached
                    await().atMost(Duration.ofSeconds(5)).until(() ->
                            String.valueOf(server.command("HGET", "dlock:{" + name + "}", "o"))
                                    .equals(takenHere ? "someone-else" : "null"));
                }
            }
        }
    }

    @Test
    void twoDeadNodesAreToleratedThreeAreReportedByName() throws Exception {
        LockClient client = servers.newClient(Duration.ofSeconds(5));
        DistributedLock lock = client.getLock("dead-nodes");
        servers.master(0).kill();
        servers.master(3).kill();
        for (int i = 0; i < 5; i++) {
            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
        }
        servers.master(4).kill();
        long start = System.nanoTime();
        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("no quorum reachable")
                .hasMessageContaining(servers.master(0).uri())
                .hasMessageContaining(servers.master(3).uri())
                .hasMessageContaining(servers.master(4).uri())
                .hasMessageNotContaining(servers.master(1).uri())
                // a dead node is told apart from a slow one
                .hasMessageContaining(servers.master(0).uri() + ": timed out after 500 ms (not connected: unreachable)");
        // bounded by the per-node timeout (5 s lease / 10), not by the lease
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2000);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        // the failed attempt's release was sent before the throw, not awaited
        await().atMost(Duration.ofSeconds(2)).until(() -> servers.master(1).keys("dlock:{*").isEmpty());
    }

    /**
     * A node the list could not walk is named, as a Cluster's master is; the locks come from the nodes
     * that answered, and with a majority of them answering no lock a quorum holds is missing.
     */
    @Test
    void listingWithADeadNodeNamesItAndListsWhatTheOthersHold() {
        LockClient client = servers.newClient(Duration.ofSeconds(10));
        assertThat(client.getLock("listed-a").tryLock()).isTrue();
        assertThat(client.getLock("listed-b").tryLock()).isTrue();
        servers.master(2).kill();

        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> client.listLocks("listed-*"));
        assertThat(thrown).isInstanceOf(LockListIncompleteException.class);
        LockListIncompleteException incomplete = (LockListIncompleteException) thrown;
        assertThat(incomplete.nodeErrors()).extracting(NodeError::address).containsExactly(servers.master(2).uri());
        assertThat(incomplete.getMessage()).startsWith("list incomplete: 1 of 5 masters failed (" + servers.master(2).uri()
                + ": ").endsWith("the locks of the other 4 are listed");
        assertThat(incomplete.listed()).extracting(LockInfo::name).containsExactly("listed-a", "listed-b");
    }

    @Test
    void pausedNodeDoesNotHoldUpAcquireOrRelease() throws Exception {
        LockClient client = servers.newRedlockClient(Duration.ofMillis(300), builder -> builder);
        DistributedLock lock = client.getLock("paused-node");
        servers.master(2).pause();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(300 + 700);
        }
    }

    @Test
    void failedAttemptIsReleasedOnANodeThatWasPausedDuringIt() throws Exception {
        // a 10 s lease: a copy that vanished within the few seconds awaited below was released, not expired
        LockClient client = servers.newClient(Duration.ofSeconds(10));
        RedisServer paused = servers.master(4);
        // first with the node's script cache warm, then with it empty, so that the paused node's
        // backlog (acquire, then release) is answered NOSCRIPT and both are sent again
        for (boolean scriptsCached : new boolean[] {true, false}) {
            String name = "paused-during-failed-attempt-" + scriptsCached;
            String key = "dlock:{" + name + "}";
            DistributedLock lock = client.getLock(name);
            // the client's link to the node must be up before the pause, or the attempt never reaches it
            long callsBefore = CommandStats.scriptCalls(paused);
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                lock.isLocked();
                return CommandStats.scriptCalls(paused) > callsBefore;
            });
            takeByAnotherOwner(servers.master(0), name);
            takeByAnotherOwner(servers.master(1), name);
            takeByAnotherOwner(servers.master(2), name);
            paused.command("DEL", "dlock:token-floor");
            if (!scriptsCached) {
                paused.command("SCRIPT", "FLUSH");
            }

            paused.pause();
            try {
                // node 3 grants, nodes 0-2 refuse: decided without waiting for the paused node
                assertThat(lock.tryLock()).isFalse();
            } finally {
                paused.resume();
            }

            // the paused node runs its backlog: the late grant, then the release queued behind it.
            // The release raises the node's token floor, which shows that the grant did reach the
            // node and was given back (an absent copy alone could mean it had not run yet).
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
                assertThat(paused.command("GET", "dlock:token-floor")).as("floor raised by the release").isNotNull();
                assertThat(paused.command("EXISTS", key)).as("copy of the failed attempt").isEqualTo(0L);
            });
            await().atMost(Duration.ofSeconds(3)).until(() -> servers.master(3).command("EXISTS", key).equals(0L));
            for (int node = 0; node < 3; node++) {
                assertThat(servers.master(node).command("HGET", key, "o")).isEqualTo("someone-else");
            }
        }
    }

    @Test
    void holdIsLostWhenAMajorityStopsAnsweringAndItsHolderIsToldWhenItsValidityEnds() throws Exception {
        Duration lease = Duration.ofMillis(1500);
        List<LockLostException> told = new CopyOnWriteArrayList<>();
        // each renewal waits 400 ms (the node timeout) for the paused nodes; the loss must not wait for it
        LockClient client = servers.newRedlockClient(Duration.ofMillis(400), builder -> builder
                .defaultLease(lease)
                .commandTimeout(Duration.ofMillis(450))
                .listener(told::add));
        DistributedLock lock = client.getLock("majority-paused");
        lock.lock();
        LockHandle handle = client.getLock("majority-paused-handle").acquireAsync().get(5, TimeUnit.SECONDS);
        AtomicLong toldAt = new AtomicLong();
        handle.whenLost().thenRun(() -> toldAt.set(System.nanoTime()));

        List<RedisServer> majority = List.of(servers.master(0), servers.master(2), servers.master(3));
        majority.forEach(RedisServer::pause);
        try {
            // the validity left when the pause began is still the holder's to rely on
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(handle.isValid()).isTrue();

            AtomicLong validityEnd = new AtomicLong();
            AtomicBoolean validWithoutValidity = new AtomicBoolean();
            await().pollInSameThread().pollInterval(Duration.ofMillis(5)).atMost(lease.plusSeconds(1)).until(() -> {
                long now = System.nanoTime();
                Duration left = handle.leaseEstimate();
                // remainingLease first: once it is zero, the handle must not say valid any more
                if (left.isZero() && handle.isValid()) {
                    validWithoutValidity.set(true);
                }
                if (!left.isZero()) {
                    validityEnd.set(now + left.toNanos());
                }
                return handle.whenLost().isDone() && !lock.isHeldByCurrentThread() && told.size() == 2;
            });
            assertThat(validWithoutValidity).as("handle valid after its validity ran out").isFalse();
            // told when the validity ran out, not at the next renewal's reply a node timeout later
            assertThat(TimeUnit.NANOSECONDS.toMillis(toldAt.get() - validityEnd.get())).isBetween(0L, 200L);
            assertThat(told).extracting(LockLostException::getMessage)
                    .anySatisfy(message -> assertThat(message).contains("'majority-paused'"))
                    .anySatisfy(message -> assertThat(message).contains("'majority-paused-handle'"));
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
            assertThatThrownBy(handle::release).isInstanceOf(LockLostException.class);
        } finally {
            majority.forEach(RedisServer::resume);
        }
        // nothing stays stuck: the copies expire by their lease and another client takes the lock
        DistributedLock rival = servers.newClient(lease).getLock("majority-paused");
        assertThat(rival.tryLock(lease.toMillis() * 2, TimeUnit.MILLISECONDS)).isTrue();
        rival.unlock();
    }

    @Test
    void withAMajorityDeadAcquiresFailAfterTheirBudgetNamingTheDeadNodes() throws Exception {
        LockClient client = servers.newClient(builder -> builder
                .defaultLease(Duration.ofSeconds(5))
                .commandTimeout(Duration.ofMillis(1250))
                .outageTolerance(Duration.ofMillis(500)));
        DistributedLock lock = client.getLock("majority-dead");
        List<RedisServer> dead = List.of(servers.master(0), servers.master(2), servers.master(4));
        dead.forEach(RedisServer::kill);
        // "no quorum reachable" is an error, not "busy": one attempt is told at once; a caller
        // willing to wait keeps trying (the nodes may come back) until its wait, or without one
        // the outage tolerance, ends
        assertFailsNamingDeadNodes(lock::tryLock, dead, 0);
        assertFailsNamingDeadNodes(() -> lock.tryLock(1, TimeUnit.SECONDS), dead, 1000);
        assertFailsNamingDeadNodes(lock::lockInterruptibly, dead, 500);
        assertFailsNamingDeadNodes(lock::lock, dead, 500);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        // the live nodes' grants are released: sent before the throw, so they may land just after it
        await().atMost(Duration.ofSeconds(2)).until(() ->
                servers.master(1).keys("dlock:{*").isEmpty() && servers.master(3).keys("dlock:{*").isEmpty());
    }

    @Test
    void waiterIsToldWhenAMajorityDiesWhileItWaits() throws Exception {
        DistributedLock holder = servers.newClient(Duration.ofSeconds(5)).getLock("majority-dies");
        // a wait, so that the set-up does not hang on three nodes answering within their 100 ms on a
        // loaded machine (no quorum is an error that a caller with a wait tries again)
        assertThat(holder.tryLock(Duration.ofSeconds(10), Duration.ofSeconds(1))).isTrue();
        DistributedLock lock = servers.newClient(Duration.ofSeconds(5)).getLock("majority-dies");
        CompletableFuture<Optional<LockHandle>> waiting = lock.tryAcquireAsync(Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(5)).until(() ->
                servers.master(1).command("PUBSUB", "NUMSUB", "dlock:{majority-dies}:released").toString().endsWith(", 1]"));

        List<RedisServer> dead = List.of(servers.master(0), servers.master(2), servers.master(4));
        dead.forEach(RedisServer::kill);
        // it tries again when the holder's 1 s lease ends, finds no quorum, keeps trying until its
        // wait ends, and then says that Redis failed
        await().atMost(Duration.ofMillis(2000 + 500 + 1000)).until(waiting::isDone);
        assertThatThrownBy(waiting::get).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(LockBackendException.class)
                .hasMessageContaining("of the wait of 2.0 s")
                .hasMessageContaining("no quorum reachable")
                .hasMessageContaining(dead.get(0).uri())
                .hasMessageContaining(dead.get(1).uri())
                .hasMessageContaining(dead.get(2).uri());
        await().atMost(Duration.ofSeconds(2)).until(() -> servers.master(1).keys("dlock:{majority-dies}").isEmpty()
                && servers.master(3).keys("dlock:{majority-dies}").isEmpty());
    }

    private static void assertFailsNamingDeadNodes(ThrowingCallable acquire, List<RedisServer> dead, long budgetMs) {
        long start = System.nanoTime();
        assertThatThrownBy(acquire)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("no quorum reachable (need 3 of 5)")
                .hasMessageContaining(dead.get(0).uri())
                .hasMessageContaining(dead.get(1).uri())
                .hasMessageContaining(dead.get(2).uri())
                .hasMessageNotContaining(servers.master(1).uri())
                .hasMessageNotContaining(servers.master(3).uri());
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(tookMs).isGreaterThanOrEqualTo(budgetMs).isLessThan(budgetMs + 500 + 1000);
    }

    @Test
    void lockSurvivesAMinorityOfNodesLosingTheirDataAndIsLostWithAMajority() throws Exception {
        LockClient holderClient = servers.newClient(Duration.ofMillis(900));
        DistributedLock holder = holderClient.getLock("restarted");
        DistributedLock rival = servers.newClient(Duration.ofMillis(900)).getLock("restarted");
        holder.lock();
        long token = holder.fencingToken();

        servers.master(0).restart();
        servers.master(1).restart();
        // the watchdog puts the lost copies back once a quorum renewed the hold
        await().atMost(Duration.ofSeconds(5)).until(() ->
                servers.master(0).keys("dlock:{*").size() == 1 && servers.master(1).keys("dlock:{*").size() == 1);
        assertThat(rival.tryLock()).isFalse();
        assertThat(holder.isHeldByCurrentThread()).isTrue();
        holder.unlock();

        holder.lock();
        // all three stopped first: else the watchdog, renewing on a quorum between two restarts,
        // puts the lost copy back on the node restarted first
        servers.master(2).pause();
        servers.master(3).pause();
        servers.master(4).pause();
        servers.master(2).restart();
        servers.master(3).restart();
        servers.master(4).restart();
        // the wait covers the rival's reconnection to three restarted servers, which on a busy
        // machine can take Lettuce's reconnect backoff several seconds
        assertThat(rival.tryLock(15, TimeUnit.SECONDS)).isTrue();
        assertThat(rival.fencingToken()).isGreaterThan(token);
        assertThatThrownBy(holder::unlock).isInstanceOf(LockLostException.class);
        rival.unlock();
    }

    @Test
    void tokensIncreaseAcrossHoldersGrantedByDifferentMajorities() throws Exception {
        LockClient client = servers.newClient(Duration.ofSeconds(5));
        DistributedLock lock = client.getLock("majorities");
        long previous = 0;
        for (int round = 0; round < 10; round++) {
            // two different nodes are taken elsewhere each round, so each grant comes from another majority
            takeByAnotherOwner(servers.master(round % 5), "majorities");
            takeByAnotherOwner(servers.master((round + 2) % 5), "majorities");
            assertThat(lock.tryLock()).isTrue();
            assertThat(lock.fencingToken()).isGreaterThan(previous);
            previous = lock.fencingToken();
            lock.unlock();
            servers.servers(Topology.REDLOCK).forEach(server -> server.command("DEL", "dlock:{majorities}"));
        }
    }

    @Test
    void releasedTokenRaisesTheFloorSoANodeWithASlowClockCannotGoBelowIt() throws Exception {
        LockClient client = servers.newClient(Duration.ofSeconds(5));
        DistributedLock lock = client.getLock("floor");
        // node 0 behaves like a node whose clock runs far ahead: its proposals are huge
        long far = (System.currentTimeMillis() + TimeUnit.DAYS.toMillis(365)) * 1000;
        servers.master(0).command("SET", "dlock:token-floor", Long.toString(far));
        // nodes 3 and 4 are taken, so the quorum must include node 0 (whose answer may come last,
        // e.g. after reloading its scripts when an earlier test restarted it)
        takeByAnotherOwner(servers.master(3), "floor");
        takeByAnotherOwner(servers.master(4), "floor");
        assertThat(lock.tryLock()).isTrue();
        long high = lock.fencingToken();
        assertThat(high).isGreaterThan(far);
        lock.unlock();
        servers.master(3).command("DEL", "dlock:{floor}");
        servers.master(4).command("DEL", "dlock:{floor}");

        // the next majority excludes node 0; its nodes remember the released token
        takeByAnotherOwner(servers.master(0), "floor");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.fencingToken()).isGreaterThan(high);
        lock.unlock();
    }

    @Test
    void everyNodeMustBeDistinctAndThereMustBeThree() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.redlock(servers.master(0).uri(), servers.master(1).uri())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3");
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.redlock(servers.master(0).uri(), servers.master(0).uri(), servers.master(1).uri())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
        List<String> uris = servers.uris(Topology.REDLOCK);
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(uris.get(0))).store(RedisStore.redlock(uris.toArray(String[]::new))).build())
                .isInstanceOf(IllegalStateException.class);
    }
}
