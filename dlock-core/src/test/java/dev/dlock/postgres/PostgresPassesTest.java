package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import dev.dlock.LockLostException;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Passes (schema version 4): a client hands a lock to its own parked thread with the next of the 15
 * tokens the database left above the hold's, without a call. Tokens stay strictly increasing per
 * lock across clients, the passed hold is renewed and can be lost like any hold, and another
 * client's inspection shows the thread that holds it.
 */
class PostgresPassesTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    private LockClient client(String name) {
        return client(name, lost -> { });
    }

    private LockClient client(String name, dev.dlock.LockListener listener) {
        return LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).clientName(name)
                .defaultLease(Duration.ofSeconds(5)).commandTimeout(Duration.ofMillis(1600)).listener(listener).build();
    }

    @Test
    void threadsOfOneClientTakingTurnsGetStrictlyIncreasingTokensMostlyWithoutACall() throws Exception {
        try (LockClient client = client("turns")) {
            DistributedLock lock = client.getLock("pass-turns");
            int threads = 4;
            int rounds = 150;
            List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    for (int i = 0; i < rounds; i++) {
                        lock.lock();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            tokens.add(lock.fencingToken());
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                }, "turns-" + t);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join(120_000);
                assertThat(worker.isAlive()).isFalse();
            }
            assertThat(overlaps).hasValue(0);
            assertThat(tokens).hasSize(threads * rounds).isSorted().doesNotHaveDuplicates();
            long passes = 0;
            for (int i = 1; i < tokens.size(); i++) {
                long step = tokens.get(i) - tokens.get(i - 1);
                if (step < 16) {
                    passes++;
                }
            }
            // the database's grants step by 16; a step below is a grant the client made alone
            assertThat(passes).as("grants passed between the client's threads without a call, of %s", tokens.size())
                    .isGreaterThan(tokens.size() / 3);
            assertThat(postgres.server().sql("SELECT count(*) FROM dlock_hold WHERE name = 'dlock:{pass-turns}' "
                    + "AND lease_end > clock_timestamp()")).as("nothing left held").isEqualTo("0");
        }
    }

    @Test
    void aPassedHoldIsRenewedShownToOthersAndLostWhenForcedAndTheNextGrantIsAboveIt() throws Exception {
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        try (LockClient owner = client("passer", lost::complete); LockClient other = client("other")) {
            DistributedLock lock = owner.getLock("pass-kept");
            lock.lock();
            long granted = lock.fencingToken();
            // the first thread to wait asks the database and is queued there: the release hands it the
            // lock by a call; the second parks without asking, and its turn is passed without one
            CompletableFuture<Long> firstToken = new CompletableFuture<>();
            Thread first = new Thread(() -> {
                lock.lock();
                firstToken.complete(lock.fencingToken());
                lock.unlock();
            }, "first-waiter");
            CompletableFuture<Long> passedToken = new CompletableFuture<>();
            CountDownLatch release = new CountDownLatch(1);
            Thread taker = new Thread(() -> {
                lock.lock();
                passedToken.complete(lock.fencingToken());
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "passed-to");
            for (Thread waiter : List.of(first, taker)) {
                waiter.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.WAITING
                        || waiter.getState() == Thread.State.TIMED_WAITING);
            }
            lock.unlock();
            assertThat(firstToken.get(10, TimeUnit.SECONDS)).as("granted by the database").isGreaterThanOrEqualTo(granted + 16);
            long token = passedToken.get(10, TimeUnit.SECONDS);
            assertThat(token).as("a pass: the first waiter's token plus one").isEqualTo(firstToken.get() + 1);

            DistributedLock seen = other.getLock("pass-kept");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                LockInfo info = seen.info();
                assertThat(info.fencingToken()).isEqualTo(token);
                assertThat(info.holder().map(LockHolder::thread).orElse("")).contains("passed-to");
            });
            // past the 5 s lease, kept by its renewals under the database's owner id of the hold it came from
            TimeUnit.MILLISECONDS.sleep(7_000);
            assertThat(seen.tryLock()).isFalse();
            assertThat(lost).isNotDone();

            assertThat(seen.forceUnlock()).isTrue();
            // told by the forced release's notice, which names the hold the database granted, not by a later renewal
            assertThat(lost.get(10, TimeUnit.SECONDS).reason()).isEqualTo(dev.dlock.LockObserver.LossCause.FORCE_RELEASED);
            assertThat(lost.get().fencingToken()).isEqualTo(token);
            assertThat(seen.tryLock()).isTrue();
            assertThat(seen.fencingToken()).as("above every pass of the forced hold").isGreaterThanOrEqualTo(firstToken.get() + 16);
            seen.unlock();
            release.countDown();
            taker.join(10_000);
            first.join(10_000);
        }
    }
}
