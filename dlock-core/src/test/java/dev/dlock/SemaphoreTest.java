package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The semaphore's promises in one JVM, on one Redis, over Redlock (5 masters), in memory and on ZooKeeper. */
class SemaphoreTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(5).withInMemory().withRedlockNodeTimeout(Duration.ofMillis(250))
            .withZooKeeper();

    private static void assertNothingLeft(Topology topology) {
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void atMostThePermitCountHoldAtOnceAndEveryWaiterGetsIn(Topology topology) throws Exception {
        List<LockClient> clients = List.of(servers.newClient(topology), servers.newClient(topology));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger entries = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                DistributedSemaphore semaphore = clients.get(t % 2).getSemaphore("pool", 3);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 8; i++) {
                        try (LockHandle permit = semaphore.acquire()) {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            LockSupport.parkNanos(2_000_000);
                            inside.decrementAndGet();
                            entries.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(most.get()).isBetween(2, 3);
        assertThat(entries.get()).isEqualTo(64);
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void thePermitCountIsFixedWhileAnyPermitIsHeld(Topology topology) throws Exception {
        DistributedSemaphore three = servers.newClient(topology).getSemaphore("resized", 3);
        DistributedSemaphore five = servers.newClient(topology).getSemaphore("resized", 5);
        LockHandle permit = three.acquire();
        assertThatThrownBy(five::tryAcquire).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'resized'").hasMessageContaining("held with 3 permits")
                .hasMessageContaining("asked for it with 5");
        assertThatThrownBy(() -> five.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
        assertThat(three.info().permits()).isEqualTo(3);
        permit.release();
        // empty again: the next acquire sets the count afresh
        try (LockHandle first = five.acquire()) {
            assertThat(five.info().permits()).isEqualTo(5);
            assertThatThrownBy(three::tryAcquire).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("held with 5 permits");
            assertThat(first.isValid()).isTrue();
        }
        assertNothingLeft(topology);
    }

    @Test
    void badInputIsRefusedNamingTheValue() {
        LockClient client = servers.newClient(Topology.ONE_REDIS);
        for (int permits : new int[] {0, -3, LockClient.MAX_PERMITS + 1}) {
            assertThatThrownBy(() -> client.getSemaphore("s", permits)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("permits").hasMessageContaining("got " + permits);
        }
        assertThatThrownBy(() -> client.getSemaphore(" ", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("' '");
        DistributedSemaphore semaphore = client.getSemaphore("s", 2);
        assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-1S");
        assertThatThrownBy(() -> semaphore.acquire(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
    }

    @Test
    void aHugeWaitHasNoBound() throws Exception {
        DistributedSemaphore semaphore = servers.newClient(Topology.ONE_REDIS).getSemaphore("unbounded", 1);
        LockHandle first = semaphore.tryAcquire(Duration.ofSeconds(Long.MAX_VALUE)).orElseThrow();
        CompletableFuture<Optional<LockHandle>> second = semaphore.tryAcquireAsync(Duration.ofDays(1_000), Duration.ofSeconds(30));
        assertThat(second).isNotDone();
        first.release();
        second.get(10, TimeUnit.SECONDS).orElseThrow().release();
        assertNothingLeft(Topology.ONE_REDIS);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void onlyAPermitOfThisSemaphoreAndClientIsReleased(Topology topology) throws Exception {
        LockClient client = servers.newClient(topology);
        DistributedSemaphore semaphore = client.getSemaphore("owned", 2);
        LockHandle permit = semaphore.acquire();
        LockHandle otherSemaphores = client.getSemaphore("other", 2).acquire();
        LockHandle lockHandle = client.getLock("owned-lock").acquireAsync().get(10, TimeUnit.SECONDS);
        DistributedSemaphore otherClients = servers.newClient(topology).getSemaphore("owned", 2);

        assertThatThrownBy(() -> semaphore.release(otherSemaphores)).isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'owned'");
        assertThatThrownBy(() -> semaphore.release(lockHandle)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> semaphore.release(null)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> otherClients.release(permit)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(semaphore.info().holds()).hasSize(1);

        semaphore.release(permit);
        assertThatThrownBy(() -> semaphore.release(permit)).isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("released already");
        // the handle's own release says the same as the semaphore's: one exception for a double release
        assertThatThrownBy(permit::release).isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("released already");
        otherSemaphores.release();
        lockHandle.release();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void infoListsEveryPermitHolder(Topology topology) throws Exception {
        DistributedSemaphore a = servers.newClient(topology, builder -> builder.clientName("billing-a")).getSemaphore("listed", 3);
        DistributedSemaphore b = servers.newClient(topology, builder -> builder.clientName("billing-b")).getSemaphore("listed", 3);
        assertThat(a.info().isLocked()).isFalse();
        assertThat(a.availablePermits()).isEqualTo(3);
        LockHandle first = a.acquire();
        LockHandle second = b.acquire(Duration.ofSeconds(20));
        LockHandle third = a.acquire();
        // On ZooKeeper a queued grant's stamp follows the acquire's return by one write (design.md,
        // "ZooKeeper"): another client's info() sees every holder once it has landed, not before.
        LockInfo info = topology == Topology.ZOOKEEPER
                ? await().atMost(Duration.ofSeconds(5)).until(b::info, seen -> seen.holdCount() == 3)
                : b.info();
        assertThat(info.permits()).isEqualTo(3);
        assertThat(info.holdCount()).isEqualTo(3);
        assertThat(info.holds()).extracting(hold -> hold.holder().clientName())
                .containsExactly("billing-a", "billing-b", "billing-a");
        assertThat(info.holds()).allSatisfy(hold -> {
            assertThat(hold.shared()).isTrue();
            assertThat(hold.holdCount()).isEqualTo(1);
            assertThat(hold.holder().pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(hold.remainingLease()).isPositive();
        });
        List<Long> tokens = info.holds().stream().map(HoldInfo::fencingToken).toList();
        if (topology == Topology.ONE_REDIS) {
            assertThat(tokens).containsExactly(first.fencingToken(), second.fencingToken(), third.fencingToken());
        }
        if (topology != Topology.REDLOCK) {
            // Redlock lists them in the order they reached a quorum: a node that granted the first one
            // late, after the acquire had returned, can have given it the largest token
            assertThat(tokens).isSorted();
        }
        assertThat(tokens).doesNotHaveDuplicates();
        assertThat(a.availablePermits()).isZero();
        assertThat(a.tryAcquire()).isEmpty();
        // what the command line shows: the plain view of the name and the listing
        LockClient operator = servers.newClient(topology);
        assertThat(operator.getLock("listed").info().holds()).hasSize(3);
        assertThat(operator.listLocks("list*")).singleElement()
                .satisfies(listed -> assertThat(listed.holds()).hasSize(3))
                .satisfies(listed -> assertThat(listed.permits()).isEqualTo(3));

        second.release();
        assertThat(a.availablePermits()).isEqualTo(1);
        first.release();
        third.release();
        assertThat(a.info().holds()).isEmpty();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void everyPermitGetsAGreaterTokenThanAnyBefore(Topology topology) throws Exception {
        DistributedSemaphore semaphore = servers.newClient(topology).getSemaphore("tokens", 2);
        long previous = 0;
        LockHandle kept = null;
        for (int i = 0; i < 10; i++) {
            LockHandle permit = semaphore.acquire();
            assertThat(permit.fencingToken()).as("permit %d", i).isGreaterThan(previous);
            previous = permit.fencingToken();
            // overlapping permits too: one is kept while the next is taken
            if (kept != null) {
                kept.release();
            }
            kept = permit;
        }
        kept.release();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void anExpiredPermitIsReportedLostAndGoesToTheNextWaiter(Topology topology) throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient holder = servers.newClient(topology, builder -> builder.listener(told::complete));
        DistributedSemaphore semaphore = holder.getSemaphore("expiring", 1);
        LockHandle permit = semaphore.tryAcquire(Duration.ZERO, Duration.ofMillis(500)).orElseThrow();
        DistributedSemaphore rival = servers.newClient(topology).getSemaphore("expiring", 1);
        LockHandle next = rival.tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(permit.fencingToken());
        assertThat(permit.whenLost().get(5, TimeUnit.SECONDS).getMessage()).contains("semaphore 'expiring'");
        assertThat(told.get(5, TimeUnit.SECONDS).lockName()).isEqualTo("expiring");
        assertThat(permit.isValid()).isFalse();
        assertThatThrownBy(permit::release).isInstanceOf(LockLostException.class);
        assertThat(rival.info().holds()).singleElement()
                .satisfies(hold -> assertThat(hold.fencingToken()).isGreaterThanOrEqualTo(next.fencingToken()));
        next.release();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void theWatchdogKeepsAPermitPastItsLease(Topology topology) throws Exception {
        // a command timeout of a quarter of it: connecting must fit in it on a loaded machine
        Duration lease = Duration.ofMillis(1200);
        DistributedSemaphore semaphore = servers.newClient(topology, LockServers.lease(lease)).getSemaphore("renewed", 1);
        DistributedSemaphore rival = servers.newClient(topology, LockServers.lease(lease)).getSemaphore("renewed", 1);
        LockHandle permit = semaphore.acquire();
        long end = System.nanoTime() + lease.toNanos() * 3;
        while (System.nanoTime() < end) {
            assertThat(rival.tryAcquire(Duration.ofMillis(lease.toMillis() / 5))).isEmpty();
        }
        assertThat(permit.isValid()).isTrue();
        permit.release();
        assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void waitersThatGiveUpLeaveNothingBehind(Topology topology) throws Exception {
        DistributedSemaphore semaphore = servers.newClient(topology).getSemaphore("left-behind", 1);
        DistributedSemaphore waiters = servers.newClient(topology).getSemaphore("left-behind", 1);
        LockHandle permit = semaphore.acquire();
        assertThat(waiters.tryAcquire(Duration.ofMillis(200))).isEmpty();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread interrupted = new Thread(() -> {
            try {
                waiters.acquire();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        interrupted.start();
        CompletableFuture<LockHandle> cancelled = waiters.acquireAsync();
        await().atMost(Duration.ofSeconds(5)).until(() -> interrupted.getState() == Thread.State.WAITING);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(cancelled.cancel(true)).isTrue();
        permit.release();
        assertNothingLeft(topology);
        Optional<LockHandle> again = waiters.tryAcquire();
        assertThat(again).isPresent();
        again.get().release();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Topology.class, names = {"ONE_REDIS", "REDLOCK", "IN_MEMORY", "ZOOKEEPER"})
    void forceReleaseAllTakesEveryPermitAndTheHoldersLearnIt(Topology topology) throws Exception {
        DistributedSemaphore semaphore = servers.newClient(topology).getSemaphore("forced", 2);
        LockHandle first = semaphore.acquire();
        LockHandle second = semaphore.acquire();
        assertThat(servers.newClient(topology).getSemaphore("forced", 2).forceReleaseAll()).isTrue();
        assertThat(first.whenLost().get(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(second.whenLost().get(10, TimeUnit.SECONDS)).isNotNull();
        assertThatThrownBy(first::release).isInstanceOf(LockLostException.class);
        assertThat(semaphore.forceReleaseAll()).isFalse();
        assertNothingLeft(topology);
    }

    @Test
    void aClientsWaitersBeyondThePermitCountWaitInTheClientAndGetInInOrder() throws Exception {
        DistributedSemaphore semaphore = servers.newClient(Topology.ONE_REDIS).getSemaphore("gated", 2);
        LockHandle held = semaphore.acquire();
        LockHandle other = semaphore.acquire();
        long before = CommandStats.scriptCalls(servers.server());
        List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waiting.add(semaphore.acquireAsync());
        }
        assertThat(semaphore.tryAcquire()).isEmpty();
        // this client holds every permit: its other acquires queue in the client without asking Redis
        assertThat(CommandStats.scriptCalls(servers.server())).isEqualTo(before);
        for (int i = 0; i < waiting.size(); i++) {
            held.release();
            held = waiting.get(i).get(10, TimeUnit.SECONDS);
            for (CompletableFuture<LockHandle> later : waiting.subList(i + 1, waiting.size())) {
                assertThat(later).as("waiter %d after waiter %d", waiting.indexOf(later), i).isNotDone();
            }
        }
        held.release();
        other.release();
        // one release and one acquire per permit passed on: no waiter woke for nothing
        assertThat(CommandStats.scriptCalls(servers.server()) - before).isLessThanOrEqualTo(2 * waiting.size() + 2);
        assertNothingLeft(Topology.ONE_REDIS);
    }

    @Test
    void closeGivesBackThePermitsOfTheClient() throws Exception {
        LockClient client = servers.newClient(Topology.ONE_REDIS);
        client.getSemaphore("closed", 3).acquireUninterruptibly();
        client.getSemaphore("closed", 3).tryAcquire(Duration.ZERO, Duration.ofMinutes(5));
        client.close();
        assertThat(servers.server().keys("*{*")).isEmpty();
    }
}
