package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.processes.FairWaiterWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On one Redis the reentrant lock's refused waiters are queued with the lock, and a release hands
 * the lock to the first of them, whatever its client, naming it in one message: the others are
 * not woken, and the named waiter takes the lock over without asking Redis again.
 */
class ClientHandoffTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    private static final Duration SHORT_WAITER_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void releasesHandTheLockToQueuedWaitersInTheOrderTheyAskedWhateverTheirClientOneMessageEach() throws Exception {
        RedisServer server = servers.server();
        LockClient a = servers.newClient();
        DistributedLock held = a.getLock("turns");
        held.lock();
        long holderToken = held.fencingToken();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        String[] names = {"b", "c", "a"};
        LockClient[] clients = {servers.newClient(), servers.newClient(), a};
        for (int i = 0; i < names.length; i++) {
            DistributedLock lock = clients[i].getLock("turns");
            String name = names[i];
            waiters.add(CompletableFuture.runAsync(() -> {
                lock.lock();
                try {
                    order.add(name);
                    tokens.add(lock.fencingToken());
                } finally {
                    lock.unlock();
                }
            }));
            int queued = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> queueLength(server, "turns") == queued);
        }
        long callsBefore = CommandStats.scriptCalls(server);
        long publishesBefore = CommandStats.publishes(server);
        long clockReadsBefore = CommandStats.calls(server, "time");
        long existsBefore = CommandStats.calls(server, "exists");
        held.unlock();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        assertThat(order).containsExactly("b", "c", "a");
        assertThat(tokens.get(0)).isGreaterThan(holderToken);
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        // a's handoff to b (a's own waiter, parked, asks again and keeps its place), the releases
        // of b, c and a; taking a handed lock over asks Redis nothing. A race for the lock at every
        // release would cost several attempts per release.
        assertThat(CommandStats.scriptCalls(server) - callsBefore).isLessThanOrEqualTo(6);
        // one message per handoff, naming its waiter, and the last release's
        assertThat(CommandStats.publishes(server) - publishesBefore).isEqualTo(4);
        // each script reads the server's clock at most once, and a handoff finds the queue by
        // reading its head, without asking first whether it exists
        assertThat(CommandStats.calls(server, "time") - clockReadsBefore)
                .isLessThanOrEqualTo(CommandStats.scriptCalls(server) - callsBefore);
        assertThat(CommandStats.calls(server, "exists") - existsBefore).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.keys("dlock:{turns}*").isEmpty());
    }

    @Test
    void aWaiterKilledWhileQueuedHoldsTheLockUpForNoLongerThanTheWaiterTimeout() throws Exception {
        RedisServer server = servers.server();
        DistributedLock holder = servers.newClient(ClientHandoffTest::shortWaiterTimeout).getLock("crash");
        holder.lock();
        // it asks for a 5-minute lease: the lock must not wait for that
        JavaProcess doomed = servers.track(JavaProcesses.start(FairWaiterWorker.class, List.of(server.uri(), "crash",
                Long.toString(SHORT_WAITER_TIMEOUT.toMillis()), Long.toString(TimeUnit.MINUTES.toMillis(5)),
                "reentrant")));
        await().atMost(Duration.ofSeconds(60)).until(() -> queueLength(server, "crash") == 1);
        DistributedLock live = servers.newClient(ClientHandoffTest::shortWaiterTimeout).getLock("crash");
        CompletableFuture<Long> liveGotIt = CompletableFuture.supplyAsync(() -> {
            live.lock();
            try {
                return live.fencingToken();
            } finally {
                live.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queueLength(server, "crash") == 2);

        doomed.kill();
        holder.unlock();
        // handed to the dead waiter, which Redis cannot know yet: for no longer than its deadline
        Object pttl = server.command("PTTL", "dlock:{crash}");
        assertThat(((Number) pttl).longValue()).isLessThanOrEqualTo(SHORT_WAITER_TIMEOUT.toMillis());

        assertThat(liveGotIt.get(30, TimeUnit.SECONDS)).isPositive();
        assertThat(doomed.log()).contains("WAITING").doesNotContain("HOLDING");
        await().atMost(Duration.ofSeconds(5)).until(() -> server.keys("dlock:{crash}*").isEmpty());
    }

    @Test
    void aLockHandedOverForLessThanItsLeaseIsRenewedToItsLeaseAndStaysHeld() throws Exception {
        RedisServer server = servers.server();
        DistributedLock holder = servers.newClient().getLock("renewed");
        holder.lock();
        LockClient waiterClient = servers.newClient(ClientHandoffTest::shortWaiterTimeout);
        CompletableFuture<LockHandle> waiting = waiterClient.getLock("renewed").acquireAsync();
        await().atMost(Duration.ofSeconds(10)).until(() -> queueLength(server, "renewed") == 1);
        holder.unlock();
        LockHandle handle = waiting.get(10, TimeUnit.SECONDS);

        // handed over for at most the waiter timeout, then renewed early to the watchdog's lease
        await().atMost(Duration.ofSeconds(10)).until(() ->
                ((Number) server.command("PTTL", "dlock:{renewed}")).longValue() > SHORT_WAITER_TIMEOUT.toMillis() * 3);
        assertThat(handle.whenLost()).isNotDone();
        assertThat(server.command("HGET", "dlock:{renewed}", "t")).isEqualTo(Long.toString(handle.fencingToken()));
        handle.release();
        assertThat(server.keys("dlock:{renewed}*")).isEmpty();
    }

    @Test
    void aWaiterThatGivesUpHasLeftTheQueueWhenTheCallReturns() throws Exception {
        RedisServer server = servers.server();
        DistributedLock holder = servers.newClient().getLock("give-up");
        holder.lock();
        DistributedLock waiter = servers.newClient().getLock("give-up");
        boolean acquired = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.tryLock(300, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS);
        assertThat(acquired).isFalse();
        assertThat(queueLength(server, "give-up")).isZero();
        holder.unlock();
        assertThat(server.keys("dlock:{give-up}*")).isEmpty();
    }

    private static LockClientBuilder shortWaiterTimeout(LockClientBuilder builder) {
        return builder.waiterTimeout(SHORT_WAITER_TIMEOUT).commandTimeout(Duration.ofMillis(500));
    }

    private static long queueLength(RedisServer server, String name) {
        return ((Number) server.command("ZCARD", "dlock:{" + name + "}:queue")).longValue();
    }
}
