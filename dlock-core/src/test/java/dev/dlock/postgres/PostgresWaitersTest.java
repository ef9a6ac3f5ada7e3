package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.LockKind;
import dev.dlock.LockObserver;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many waiters on PostgreSQL, and waiters and holders across a restart and a crash of the server. */
class PostgresWaitersTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    private final List<LockClient> clients = new ArrayList<>();

    private LockClient client() {
        LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build();
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    /**
     * A read waiter is woken by the writer's release message on the lock's channel, so its
     * subscription must be in {@code dlock_listener} when the writer releases. Each round, two timed-out
     * waits join and leave the channel (a subscribe, then an unsubscribe, each through the connection
     * pool) just before the waiter joins it again; the writer's lease outlasts the test, so only the
     * message can wake the waiter. (The pool once ran a leave's delete after the next join's insert:
     * the waiter, subscribed as far as its client knew, waited out the writer's lease.)
     */
    @Test
    void aReadWaiterIsWokenByTheWritersReleaseAfterEarlierWaitsLeftTheChannel() throws Exception {
        java.util.concurrent.ConcurrentHashMap<String, AtomicInteger> waits = new java.util.concurrent.ConcurrentHashMap<>();
        LockClient readers = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).observer(new LockObserver() {
            @Override
            public void waitStarted(LockKind kind, String lockName) {
                waits.computeIfAbsent(lockName, name -> new AtomicInteger()).incrementAndGet();
            }
        }).build();
        clients.add(readers);
        LockClient writers = client();
        for (int round = 0; round < 30; round++) {
            String name = "read-after-leaves-" + round;
            LockHandle written = writers.getReadWriteLock(name).writeLock().tryAcquireAsync(Duration.ZERO, Duration.ofMinutes(5))
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            DistributedLock read = readers.getReadWriteLock(name).readLock();
            assertThat(read.tryLock(20, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(read.tryLock(20, TimeUnit.MILLISECONDS)).isFalse();
            AtomicInteger waitsOfName = waits.computeIfAbsent(name, key -> new AtomicInteger());
            int earlier = waitsOfName.get();
            CompletableFuture<LockHandle> waiting = read.acquireAsync();
            // refused, subscribed and refused again: waiting for the message
            await().atMost(Duration.ofSeconds(10)).until(() -> waitsOfName.get() > earlier);
            written.release();
            assertThat(waiting).as("round %d: woken by the release", round).succeedsWithin(Duration.ofSeconds(5));
            waiting.join().release();
        }
    }

    @Test
    void aThousandWaitersOverTwoHundredNamesOnFourClientsAllAcquireAndNothingIsLeft() {
        List<LockClient> four = List.of(client(), client(), client(), client());
        List<LockHandle> first = new ArrayList<>();
        for (int n = 0; n < 200; n++) {
            first.add(four.get(n % 4).getLock("many-" + n).acquireAsync().join());
        }
        AtomicInteger acquired = new AtomicInteger();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int w = 0; w < 1000; w++) {
            DistributedLock lock = four.get(w % 4).getLock("many-" + (w % 200));
            waiters.add(lock.tryAcquireAsync(Duration.ofSeconds(90)).thenCompose(handle -> {
                assertThat(handle).as("acquired within the wait").isPresent();
                acquired.incrementAndGet();
                return handle.get().releaseAsync();
            }));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> Long.parseLong(
                postgres.server().sql("SELECT count(*) FROM dlock_waiter")) >= 800);
        first.forEach(LockHandle::releaseAsync);
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).orTimeout(120, TimeUnit.SECONDS).join();
        assertThat(acquired.get()).isEqualTo(1000);
        assertThat(postgres.server().sql("SELECT count(*) FROM dlock_hold WHERE lease_end > now()"))
                .as("holds left: %s", postgres.server().sql("SELECT * FROM dlock_hold")).isEqualTo("0");
        assertThat(postgres.server().sql("SELECT count(*) FROM dlock_waiter")).isEqualTo("0");
    }

    /**
     * A client holds a lock; a thread of another client queues for it, then a second thread of the
     * holder's client: the release hands the lock to that second thread, ahead of the queued
     * waiter (one round trip, no NOTIFY), and the two threads, taking turns (1 ms holds), pass it
     * between them ahead of the waiter only a bounded number of times, after which the waiter gets
     * it while they still want it.
     */
    @Test
    void aReleaseMayHandTheLockToAThreadOfItsOwnClientAheadOfAQueuedWaiterABoundedNumberOfTimes() throws Exception {
        AtomicInteger localWaits = new AtomicInteger();
        LockClient local = observedClient(localWaits);
        AtomicInteger remoteWaits = new AtomicInteger();
        LockClient remote = observedClient(remoteWaits);
        List<Long> localGrants = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch firstRelease = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            pool.submit(() -> {
                DistributedLock lock = local.getLock("passing");
                lock.lock();
                localGrants.add(System.nanoTime());
                firstRelease.await();
                lock.unlock();
                takeTurns(lock, localGrants, running);
                return null;
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> localGrants.size() == 1);
            CompletableFuture<Long> remoteGrant = remote.getLock("passing").tryAcquireAsync(Duration.ofSeconds(30))
                    .thenApply(handle -> {
                        long at = System.nanoTime();
                        assertThat(handle).as("the waiter of the other client acquires").isPresent();
                        handle.get().releaseAsync();
                        return at;
                    });
            // it waits once the database refused it and queued it
            await().atMost(Duration.ofSeconds(30)).until(() -> remoteWaits.get() == 1);
            long queued = System.nanoTime();
            pool.submit(() -> {
                takeTurns(local.getLock("passing"), localGrants, running);
                return null;
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> localWaits.get() == 1);
            firstRelease.countDown();
            long remoteGrantedAt = remoteGrant.get(30, TimeUnit.SECONDS);
            long passedBy = localGrants.stream().filter(at -> at > queued && at < remoteGrantedAt).count();
            // first come first served, the queued waiter would have had the first release
            assertThat(passedBy).as("grants to the holder's client while the other client's waiter was queued")
                    .isBetween(1L, 32L);
        } finally {
            running.set(false);
            firstRelease.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private LockClient observedClient(AtomicInteger waits) {
        LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).observer(new LockObserver() {
            @Override
            public void waitStarted(LockKind kind, String lockName) {
                waits.incrementAndGet();
            }
        }).build();
        clients.add(client);
        return client;
    }

    /** Takes the lock again and again, holding it 1 ms each time, while {@code running}. */
    private static void takeTurns(DistributedLock lock, List<Long> grants, AtomicBoolean running) {
        while (running.get()) {
            lock.lock();
            grants.add(System.nanoTime());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            lock.unlock();
        }
    }

    @Test
    void fiftyWaitersAllAcquireAcrossAFastRestartOfPostgres() throws Exception {
        LockClient holderClient = client();
        LockClient waiterClient = client();
        DistributedLock held = holderClient.getLock("restart");
        LockHandle hold = held.acquireAsync(Duration.ofSeconds(3)).join();
        ExecutorService pool = Executors.newFixedThreadPool(50);
        try {
            List<Future<Boolean>> waiters = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                waiters.add(pool.submit(() -> {
                    DistributedLock lock = waiterClient.getLock("restart");
                    if (!lock.tryLock(60, TimeUnit.SECONDS)) {
                        return false;
                    }
                    lock.unlock();
                    return true;
                }));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> Long.parseLong(
                    postgres.server().sql("SELECT count(*) FROM dlock_waiter")) >= 1);
            postgres.server().restartFast();
            hold.releaseAsync();
            for (Future<Boolean> waiter : waiters) {
                assertThat(waiter.get(90, TimeUnit.SECONDS)).as("acquired within its wait").isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(postgres.server().sql("SELECT count(*) FROM dlock_hold WHERE lease_end > now()"))
                .as("holds left: %s", postgres.server().sql("SELECT * FROM dlock_hold")).isEqualTo("0");
    }

    @Test
    void tokensGoUpAcrossACrashOfPostgres() {
        long highest = 0;
        LockClient before = client();
        DistributedLock lock = before.getLock("crash-tokens");
        for (int i = 0; i < 5; i++) {
            lock.lock();
            highest = Math.max(highest, lock.fencingToken());
            lock.unlock();
        }
        postgres.server().kill();
        postgres.server().startAgain();
        DistributedLock after = client().getLock("crash-tokens");
        after.lock();
        assertThat(after.fencingToken()).isGreaterThan(highest);
        after.unlock();
    }

    @Test
    void holdersAreToldTheirHoldsAreLostWhenPostgresIsGonePastTheirLease() {
        LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl()))
                .defaultLease(Duration.ofSeconds(3)).commandTimeout(Duration.ofMillis(900)).build();
        clients.add(client);
        LockHandle handle = client.getLock("gone").acquireAsync().join();
        postgres.server().kill();
        assertThat(handle.whenLost()).succeedsWithin(Duration.ofSeconds(15));
        assertThat(handle.isValid()).isFalse();
        // an acquire gives up at the end of its wait, naming what it waited for
        assertThatThrownBy(() -> client.getLock("gone-too").tryLock(1, TimeUnit.SECONDS))
                .isInstanceOf(LockBackendException.class)
                .hasMessageStartingWith("PostgreSQL unreachable for the whole wait of 1.0 s");
    }
}
