package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An acquire with a wait rides through a Redis outage shorter than the wait. */
class OutageTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void closeClients() throws Exception {
        threads.shutdownNow();
    }

    private LockClient client() {
        return servers.newClient(builder -> builder.commandTimeout(Duration.ofMillis(500)));
    }

    @Test
    void tryLockWithAWaitAcquiresAcrossATwoSecondOutage() throws Exception {
        DistributedLock lock = client().getLock("outage-2s");
        servers.server().kill();
        long start = System.nanoTime();
        Future<Boolean> acquired = threads.submit(() -> lock.tryLock(10, TimeUnit.SECONDS) && unlocked(lock));
        Thread.sleep(2000); // the length of the outage, not a synchronisation
        assertThat(acquired).as("still waiting while Redis is down").isNotDone();
        servers.server().restart();
        assertThat(acquired.get(15, TimeUnit.SECONDS)).isTrue();
        System.out.printf("OutageTest: acquired %d ms after the wait began, Redis down 2000 ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static boolean unlocked(DistributedLock lock) {
        lock.unlock();
        return true;
    }

    @Test
    void anOutageLongerThanTheWaitFailsAfterTheWaitNamingTheLastFailure() {
        DistributedLock lock = client().getLock("outage-long");
        servers.server().kill();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> lock.tryLock(2, TimeUnit.SECONDS))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("Redis unreachable for the whole wait of 2.0 s; last failure: ")
                    .hasMessageContaining(servers.server().uri())
                    .cause().isInstanceOf(LockBackendException.class).hasMessageContaining("outage-long");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        } finally {
            servers.server().restart();
        }
    }

    @Test
    void tryLockWithoutAWaitStillFailsAtOnce() {
        DistributedLock lock = client().getLock("outage-no-wait");
        servers.server().kill();
        try {
            assertThatThrownBy(lock::tryLock).isInstanceOf(LockBackendException.class)
                    .hasMessageNotContaining("whole wait");
        } finally {
            servers.server().restart();
        }
    }

    @Test
    void twentyWaitersOnTwoClientsAllAcquireAcrossAOneSecondRestartAndLeaveNothing() throws Exception {
        // the default 30 s lease: a release message lost around the reconnect (published before
        // the pub/sub link had subscribed again) would cost a waiter up to 30 s and fail its wait
        List<LockClient> both = List.of(client(), client());
        CountDownLatch firstGrant = new CountDownLatch(1);
        List<Future<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            DistributedLock lock = both.get(i % 2).getLock("outage-crowd");
            waiters.add(threads.submit(() -> {
                if (!lock.tryLock(20, TimeUnit.SECONDS)) {
                    return false;
                }
                firstGrant.countDown();
                try {
                    Thread.sleep(100); // the work under the lock, so that the others wait
                    lock.unlock();
                } catch (LockLostException | LockBackendException restartHitTheHold) {
                    // the restart forgot this hold or cut its release: the waiter did acquire
                }
                return true;
            }));
        }
        assertThat(firstGrant.await(10, TimeUnit.SECONDS)).isTrue();
        servers.server().kill();
        Thread.sleep(1000); // the length of the outage
        servers.server().restart();
        long restartedAt = System.nanoTime();
        for (Future<Boolean> waiter : waiters) {
            assertThat(waiter.get(60, TimeUnit.SECONDS)).isTrue();
        }
        System.out.printf("OutageTest: 20 waiters on 2 clients all acquired, the last %d ms after a 1000 ms outage "
                + "ended%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt));
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.server().keys("*{*").isEmpty());
    }
}
