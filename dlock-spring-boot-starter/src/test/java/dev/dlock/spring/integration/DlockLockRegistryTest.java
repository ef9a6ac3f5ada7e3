package dev.dlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/** What Spring Integration expects of a LockRegistry, on two dlock clients sharing one Redis. */
class DlockLockRegistryTest {
    private static RedisServer redis;
    private static LockClient firstClient;
    private static LockClient secondClient;
    private final DlockLockRegistry registry = new DlockLockRegistry(firstClient);
    private final DlockLockRegistry otherRegistry = new DlockLockRegistry(secondClient);
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        firstClient = LockClient.create(RedisStore.standalone(redis.uri()));
        secondClient = LockClient.create(RedisStore.standalone(redis.uri()));
    }

    @AfterAll
    static void stop() {
        firstClient.close();
        secondClient.close();
        redis.close();
    }

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }

    @Test
    void lockAndUnlockLeaveNothingBehind() {
        Lock lock = registry.obtain("foo");
        lock.lock();
        try {
            assertThat(redis.keys("dlock:{foo}")).hasSize(1);
        } finally {
            lock.unlock();
        }
        assertThat(redis.keys("dlock:{*")).isEmpty();
    }

    @Test
    void theSameKeyGivesTheSameLockUntilExpired() {
        DlockRegistryLock lock = registry.obtain("foo");
        assertThat(registry.obtain("foo")).isSameAs(lock).isEqualTo(lock);
        assertThat(registry.obtain("bar")).isNotSameAs(lock);
        registry.expireUnusedOlderThan(60_000);
        assertThat(registry.obtain("foo")).isSameAs(lock);
        registry.expireUnusedOlderThan(-1);
        assertThat(registry.obtain("foo")).isNotSameAs(lock).isEqualTo(lock);
        assertThat(otherRegistry.obtain("foo")).isNotEqualTo(lock);
    }

    @Test
    void reentrant() throws Exception {
        Lock lock = registry.obtain("foo");
        lock.lockInterruptibly();
        lock.lock();
        assertThat(registry.obtain("foo").getHoldCount()).isEqualTo(2);
        lock.unlock();
        assertThat(otherRegistry.obtain("foo").tryLock()).isFalse();
        lock.unlock();
        assertThat(redis.keys("dlock:{foo}")).isEmpty();
    }

    @Test
    void anotherThreadWaitsInVainAndCannotUnlock() throws Exception {
        Lock lock = registry.obtain("foo");
        lock.lock();
        try {
            Future<Throwable> other = executor.submit(() -> {
                Lock same = registry.obtain("foo");
                assertThat(same.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
                try {
                    same.unlock();
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertThat(other.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
            assertThat(registry.obtain("foo").isHeldByCurrentThread()).isTrue();
            assertThat(registry.obtain("foo").isLocked()).isTrue();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void twoRegistriesOnTwoClientsExcludeEachOther() throws Exception {
        Lock first = registry.obtain("foo");
        first.lock();
        Future<Boolean> waiter = executor.submit(() -> {
            Lock second = otherRegistry.obtain("foo");
            if (!second.tryLock(30, TimeUnit.SECONDS)) {
                return false;
            }
            second.unlock();
            return true;
        });
        assertThat(otherRegistry.obtain("foo").tryLock()).isFalse();
        first.unlock();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void theLeaseOfSpringIntegrationsDistributedLockIsHonoured() throws Exception {
        LockRegistry<DistributedLock> asIntegrationSeesIt = registry;
        DistributedLock lock = asIntegrationSeesIt.obtain("ttl");
        assertThat(lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(2))).isTrue();
        try {
            assertThat(registry.obtain("ttl").remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
        } finally {
            lock.unlock();
        }
        lock.lock(Duration.ofSeconds(3));
        try {
            assertThat(registry.obtain("ttl").remainingLease()).isGreaterThan(Duration.ofSeconds(2))
                    .isLessThanOrEqualTo(Duration.ofSeconds(3));
        } finally {
            lock.unlock();
        }
    }

    @Test
    void executeLockedCountsExactlyAcrossRegistries() throws Exception {
        int[] counter = new int[1];
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            DlockLockRegistry each = i % 2 == 0 ? registry : otherRegistry;
            done.add(executor.submit(() -> {
                each.executeLocked("counter", () -> {
                    int read = counter[0];
                    Thread.yield();
                    counter[0] = read + 1;
                });
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(counter[0]).isEqualTo(40);
    }

    @Test
    void nullKeyIsRefused() {
        assertThatThrownBy(() -> registry.obtain(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
