package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.DistributedSemaphore;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PgBouncer;
import dev.dlock.testing.PostgresServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every kind through PgBouncer in transaction pooling, where LISTEN does not work: waiters poll. */
class PostgresBouncerTest {

    private static PostgresServer server;
    private static PgBouncer bouncer;

    @BeforeAll
    static void start() {
        server = PostgresServer.start();
        bouncer = PgBouncer.start(server, 4);
    }

    @AfterAll
    static void stop() {
        if (bouncer != null) {
            bouncer.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyKindWorksAndAWaiterLearnsOfTheReleaseByPollingWithoutBeingTold() throws Exception {
        try (LockClient a = LockClient.builder().store(PostgresStore.url(bouncer.jdbcUrl())).build();
                LockClient b = LockClient.builder().store(PostgresStore.url(bouncer.jdbcUrl())).build()) {
            DistributedLock lock = a.getLock("pooled");
            lock.lock();
            lock.lock();
            assertThat(lock.getHoldCount()).isEqualTo(2);
            CompletableFuture<Optional<LockHandle>> waiter = b.getLock("pooled").tryAcquireAsync(Duration.ofSeconds(20));
            lock.unlock();
            long released = System.nanoTime();
            lock.unlock();
            // the lease is 30 s: a waiter that got nothing but its lease would wait that long
            Optional<LockHandle> handle = waiter.get(10, TimeUnit.SECONDS);
            assertThat(handle).isPresent();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)).isLessThan(5_000);
            handle.get().release();

            DistributedLock fair = a.getFairLock("pooled-fair");
            fair.lock();
            assertThat(b.getFairLock("pooled-fair").tryLock()).isFalse();
            fair.unlock();

            DistributedReadWriteLock rw = a.getReadWriteLock("pooled-rw");
            rw.readLock().lock();
            assertThat(b.getReadWriteLock("pooled-rw").readLock().tryLock()).isTrue();
            b.getReadWriteLock("pooled-rw").readLock().unlock();
            assertThat(b.getReadWriteLock("pooled-rw").writeLock().tryLock()).isFalse();
            rw.readLock().unlock();
            assertThat(b.getReadWriteLock("pooled-rw").writeLock().tryLock()).isTrue();
            b.getReadWriteLock("pooled-rw").writeLock().unlock();

            DistributedSemaphore semaphore = a.getSemaphore("pooled-sem", 2);
            LockHandle one = semaphore.acquire();
            LockHandle two = b.getSemaphore("pooled-sem", 2).acquire();
            assertThat(semaphore.tryAcquire()).isEmpty();
            one.release();
            two.release();

            DistributedLock multi = a.getMultiLock("pooled-m1", "pooled-m2");
            multi.lock();
            assertThat(b.getLock("pooled-m2").tryLock()).isFalse();
            multi.unlock();
            assertThat(b.getLock("pooled-m2").tryLock()).isTrue();
            b.getLock("pooled-m2").unlock();
        }
        assertThat(server.sql("SELECT count(*) FROM dlock_hold WHERE lease_end > clock_timestamp()")).isEqualTo("0");
    }

    @Test
    void withoutPrepareThresholdInTheUrlStatementsAreNotPreparedOnTheServer() throws Exception {
        // PgJDBC prepares a statement on the server at its 5th run; through transaction pooling the
        // next transaction may run on another server connection, which lacks it or has another's
        String url = bouncer.jdbcUrl().replace("&prepareThreshold=0", "");
        try (LockClient a = LockClient.builder().store(PostgresStore.url(url)).build();
                LockClient b = LockClient.builder().store(PostgresStore.url(url).polling(Duration.ofMillis(50))).build()) {
            java.util.List<CompletableFuture<Void>> runs = new java.util.ArrayList<>();
            for (LockClient client : java.util.List.of(a, b)) {
                for (int t = 0; t < 3; t++) {
                    DistributedLock lock = client.getLock("unprepared-" + runs.size());
                    runs.add(CompletableFuture.runAsync(() -> {
                        for (int i = 0; i < 25; i++) {
                            lock.lock();
                            lock.unlock();
                        }
                    }));
                }
            }
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        }
    }
}
