package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.DistributedSemaphore;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
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
        try (LockClient a = LockClient.builder().postgres(bouncer.jdbcUrl()).build();
                LockClient b = LockClient.builder().postgres(bouncer.jdbcUrl()).build()) {
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
        assertThat(server.sql("SELECT count(*) FROM dlock_hold")).isEqualTo("0");
    }
}
