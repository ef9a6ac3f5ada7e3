package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Ownership, re-entry, inspection and input checks of the single-Redis lock. */
class ReentrantLockTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void reentryCountsHoldsAndOnlyTheLastUnlockFreesTheLock() throws Exception {
        LockClient client = clients.client(redis.server());
        DistributedLock lock = client.getLock("reentry");

        lock.lock();
        long token = lock.fencingToken();
        lock.lock();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(lock.info().holdCount()).isEqualTo(3);

        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(redis.server().keys("*")).isEmpty();
    }

    @Test
    void releaseByNonOwnerLeavesLockHeld() throws Exception {
        LockClient client = clients.client(redis.server());
        DistributedLock lock = client.getLock("owned");
        lock.lock();

        CompletableFuture<Throwable> otherThread = CompletableFuture.supplyAsync(() -> {
            try {
                client.getLock("owned").unlock();
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        assertThat(otherThread.get(5, TimeUnit.SECONDS))
                .isExactlyInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("owned");

        LockClient otherClient = clients.client(redis.server());
        assertThatThrownBy(() -> otherClient.getLock("owned").unlock())
                .isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(otherClient.getLock("owned").isLocked()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }

    @Test
    void busyLockIsFalseNotAnException() throws Exception {
        LockClient holder = clients.client(redis.server());
        LockClient other = clients.client(redis.server());
        holder.getLock("busy").lock();

        assertThat(other.getLock("busy").tryLock()).isFalse();
        assertThat(other.getLock("busy").tryLock(Duration.ofMillis(100), Duration.ofSeconds(5))).isFalse();
        assertThat(other.getLock("busy").tryAcquireAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(redis.server().command("PUBSUB", "NUMSUB", "dlock:{busy}:released").toString()).endsWith(", 0]");
    }

    @Test
    void infoShowsHolderTokenAndLease() throws Exception {
        LockClient client = clients.track(clients.builder(redis.server()).clientName("billing-7").build());
        DistributedLock lock = client.getLock("inspected");
        assertThat(lock.info().isLocked()).isFalse();
        assertThat(lock.remainingLease()).isEqualTo(Duration.ZERO);

        lock.lock(Duration.ofSeconds(20));
        LockInfo info = lock.info();
        assertThat(info.key()).isEqualTo("dlock:{inspected}");
        assertThat(info.holder()).hasValueSatisfying(holder -> {
            assertThat(holder.clientName()).isEqualTo("billing-7");
            assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(holder.thread()).isEqualTo(Thread.currentThread().getName());
        });
        assertThat(info.fencingToken()).isEqualTo(lock.fencingToken());
        assertThat(info.remainingLease()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
        lock.unlock();
    }

    @Test
    void forceUnlockFreesTheLockAndTheHolderLearnsItLostIt() throws Exception {
        LockClient holder = clients.client(redis.server());
        LockClient operator = clients.client(redis.server());
        DistributedLock lock = holder.getLock("forced");
        lock.lock();

        assertThat(operator.getLock("forced").forceUnlock()).isTrue();
        assertThat(operator.getLock("forced").forceUnlock()).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("forced");
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void newConditionIsUnsupportedAndSaysWhy() {
        DistributedLock lock = clients.client(redis.server()).getLock("conditions");
        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Condition");
    }

    @Test
    void badInputIsRejectedNamingTheValue() {
        LockClient client = clients.client(redis.server());
        assertThatThrownBy(() -> client.getLock(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> client.getLock("  ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        DistributedLock lock = client.getLock("input");
        assertThatThrownBy(() -> lock.lock(Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-5S");
        assertThatThrownBy(() -> lock.lock(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
        assertThatThrownBy(() -> lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofDays(400), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT9600H");
        assertThatThrownBy(() -> LockClient.builder().redisUri("http//nope:::")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http//nope:::");
        assertThatThrownBy(() -> LockClient.builder().defaultLease(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.01S");
        assertThatThrownBy(() -> LockClient.builder().clientName("has space"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has space");
        assertThatThrownBy(() -> LockClient.builder().keyPrefix("a").keyPrefix("b"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("keyPrefix");
    }

    @Test
    void keyOfAnotherTypeGetsAClearErrorNamingTheKey() {
        redis.server().command("SET", "dlock:{taken-by-string}", "hello");
        DistributedLock lock = clients.client(redis.server()).getLock("taken-by-string");
        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("dlock:{taken-by-string}")
                .hasMessageContaining("another type");
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(LockBackendException.class);
        assertThat(redis.server().command("GET", "dlock:{taken-by-string}")).isEqualTo("hello");
    }

    @Test
    void keyPrefixSeparatesNamespaces() throws Exception {
        LockClient a = clients.track(clients.builder(redis.server()).keyPrefix("app-a:").build());
        LockClient b = clients.track(clients.builder(redis.server()).keyPrefix("app-b:").build());
        a.getLock("shared-name").lock();
        assertThat(b.getLock("shared-name").tryLock()).isTrue();
        assertThat(redis.server().keys("*")).containsExactly("app-a:{shared-name}", "app-b:{shared-name}");
    }

    @Test
    void closeReleasesWhatTheClientHolds() throws Exception {
        LockClient client = clients.client(redis.server());
        client.getLock("held-at-close").lock();
        client.getLock("held-at-close-2").lock(Duration.ofMinutes(5));
        client.close();
        assertThat(redis.server().keys("*")).isEmpty();
    }

    @Test
    void listLocksShowsHeldLocksMatchingThePattern() throws Exception {
        LockClient client = clients.track(clients.builder(redis.server()).clientName("lister").build());
        client.getLock("orders-1").lock();
        client.getLock("orders-2").lock(Duration.ofSeconds(30));
        client.getLock("billing").lock();

        assertThat(client.listLocks("orders-*")).extracting(LockInfo::name).containsExactly("orders-1", "orders-2");
        assertThat(client.listLocks("*")).hasSize(3).allSatisfy(info -> {
            assertThat(info.holder()).hasValueSatisfying(h -> assertThat(h.clientName()).isEqualTo("lister"));
            assertThat(info.remainingLease()).isPositive();
        });
        assertThatThrownBy(() -> client.listLocks("")).isInstanceOf(IllegalArgumentException.class);
    }
}
