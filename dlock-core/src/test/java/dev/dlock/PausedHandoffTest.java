package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A release that hands the lock to a queued waiter while Redis is paused: the waiter's attempts
 * time out meanwhile and are abandoned, and when Redis resumes its backlog runs in order — the
 * release (the handoff), the waiter's timed-out attempt (which claims the lock under its waiter
 * id), that attempt's abandon (which passes the lock on) — before the waiter hears of the handoff.
 * The waiter must not take the lock over from that stale message: two clients would believe they
 * hold the lock at once.
 */
class PausedHandoffTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    private static final Duration LEASE = Duration.ofSeconds(3);

    private LockClient client() {
        return servers.newClient(builder -> builder.defaultLease(LEASE).commandTimeout(Duration.ofMillis(750)));
    }

    /**
     * @param holderLeaseMs 3 s: the holder's lease runs out during the pause, and the first
     *                      waiter's timed-out attempt takes the free lock; 10 s: the release hands
     *                      the lock to the first waiter, whose timed-out attempt claims it
     */
    @ParameterizedTest(name = "holder lease {0} ms")
    @ValueSource(longs = {3000, 10000, 3000, 10000})
    void aHandoffOverlappedByAPauseIsNeverTakenByTwoClients(long holderLeaseMs) throws Exception {
        String name = "paused-handoff";
        DistributedLock held = servers.newClient(builder -> builder.defaultLease(Duration.ofMillis(holderLeaseMs))
                .commandTimeout(Duration.ofMillis(750))).getLock(name);
        // locked and unlocked on one thread: the hold is the thread's
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        holderThread.submit(() -> held.lock()).get(5, TimeUnit.SECONDS);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        CompletableFuture<Boolean> first = waiter(client().getLock(name), violations);
        await().atMost(Duration.ofSeconds(5)).until(() -> held.info().waitingClients() == 1);
        CompletableFuture<Boolean> second = waiter(client().getLock(name), violations);
        await().atMost(Duration.ofSeconds(5)).until(() -> held.info().waitingClients() == 2);

        servers.server().pause();
        try {
            holderThread.submit(() -> {
                try {
                    held.unlock();
                } catch (LockBackendException outcomeUnknown) {
                    // the release waits in the paused server's buffer; it runs when it resumes
                }
            }).get(5, TimeUnit.SECONDS);
            // the fault: long enough for each waiter's next attempt to time out and be abandoned
            Thread.sleep(2500);
        } finally {
            servers.server().resume();
            holderThread.shutdown();
        }
        List<Boolean> acquired = List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
        assertThat(violations).isEmpty();
        // each waiter gets the lock in the end, the one that lost its place in the queue too
        assertThat(acquired).containsOnly(true);
    }

    /**
     * Waits for the lock, then holds it a while, checking that as long as this client believes it
     * holds the lock (and its lease still valid) the store's hold is this one (its token).
     */
    private static CompletableFuture<Boolean> waiter(DistributedLock lock, ConcurrentLinkedQueue<String> violations) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                if (!lock.tryLock(15, TimeUnit.SECONDS)) {
                    return false;
                }
            } catch (InterruptedException | LockBackendException e) {
                return false;
            }
            long token = lock.fencingToken();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4000);
            try {
                while (System.nanoTime() < until && lock.isHeldByCurrentThread()) {
                    Duration valid = lock.remainingLease();
                    LockInfo info;
                    try {
                        info = lock.info();
                    } catch (LockBackendException e) {
                        continue;
                    }
                    if (lock.isHeldByCurrentThread() && valid.compareTo(Duration.ofMillis(50)) > 0
                            && info.fencingToken() != token) {
                        violations.add("holds token " + token + " (valid " + valid.toMillis()
                                + " ms) while the store's hold has token " + info.fencingToken());
                        break;
                    }
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    lock.unlock();
                } catch (RuntimeException lostOrFailed) {
                    // lost: reported through violations if it mattered
                }
            }
            return true;
        }, runnable -> new Thread(runnable).start());
    }
}
