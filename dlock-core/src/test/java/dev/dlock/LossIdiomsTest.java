package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every usual way of unlocking, run after the hold was force-released by someone else, leaves
 * the thread able to lock the name again at once.
 */
class LossIdiomsTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    private final LinkedBlockingQueue<LockLostException> losses = new LinkedBlockingQueue<>();
    private LockClient client;
    private LockClient other;

    @BeforeEach
    void clients() {
        // a short watchdog lease: its renewals find a forced release within a third of it
        client = servers.newClient(builder -> builder.defaultLease(Duration.ofMillis(900)).commandTimeout(Duration.ofMillis(200))
                .listener(losses::add));
        other = servers.newClient();
    }

    /** Someone else force-releases the lock; returns once this client knows the hold is lost. */
    private void loseByForce(DistributedLock lock) throws InterruptedException {
        assertThat(other.getLock(lock.name()).forceUnlock()).isTrue();
        LockLostException loss = losses.poll(10, TimeUnit.SECONDS);
        assertThat(loss).as("loss reported").isNotNull();
        assertThat(loss.lockName()).isEqualTo(lock.name());
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
    }

    private static void assertLocksAgainAtOnce(DistributedLock lock) {
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void tryFinallyUnlockThrowsTheLossOnceThenTheThreadLocksAgain() throws Exception {
        DistributedLock lock = client.getLock("idiom-finally");
        lock.lock();
        try {
            loseByForce(lock);
        } finally {
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("idiom-finally");
        }
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertLocksAgainAtOnce(lock);
    }

    @Test
    void unlockOnlyIfHeldSkipsTheUnlockAndTheThreadLocksAgain() throws Exception {
        DistributedLock lock = client.getLock("idiom-if-held");
        lock.lock();
        try {
            loseByForce(lock);
        } finally {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
        }
        assertLocksAgainAtOnce(lock);
    }

    @Test
    void tryLockThenUnlockAfterALoss() throws Exception {
        DistributedLock lock = client.getLock("idiom-trylock");
        if (lock.tryLock(1, TimeUnit.SECONDS)) {
            try {
                loseByForce(lock);
            } finally {
                assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
            }
        }
        assertLocksAgainAtOnce(lock);
    }

    @Test
    void noUnlockAtAllAfterAnExceptionLeavesTheThreadFree() throws Exception {
        DistributedLock lock = client.getLock("idiom-no-unlock");
        assertThatThrownBy(() -> {
            lock.lock();
            loseByForce(lock);
            throw new IllegalStateException("the work failed and never unlocked");
        }).isInstanceOf(IllegalStateException.class);
        assertLocksAgainAtOnce(lock);
    }

    @Test
    void aLostReentrantHoldCountsZeroAndEveryOwedUnlockReportsTheLoss() throws Exception {
        DistributedLock lock = client.getLock("idiom-reentered");
        lock.lock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        loseByForce(lock);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertLocksAgainAtOnce(lock);
    }

    @Test
    void aNestedFinallyReportsALeaseThatRanOutAtEveryLevel() throws Exception {
        DistributedLock lock = client.getLock("idiom-nested");
        List<RuntimeException> unlocks = new ArrayList<>();
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(200))).isTrue();
        try {
            lock.lock();
            try {
                await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
            } finally {
                unlocks.add(unlockFailure(lock));
            }
        } finally {
            unlocks.add(unlockFailure(lock));
        }
        assertThat(unlocks).hasSize(2).allSatisfy(failure -> assertThat(failure).isInstanceOf(LockLostException.class)
                .hasMessageContaining("idiom-nested"));
        assertThat(unlockFailure(lock)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.tryLock(2, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    @Test
    void aMultiLockWhoseNamesWereLostReportsTheLoss() throws Exception {
        DistributedLock multi = client.getMultiLock("idiom-multi-a", "idiom-multi-b");
        multi.lock();
        assertThat(other.getLock("idiom-multi-a").forceUnlock()).isTrue();
        assertThat(other.getLock("idiom-multi-b").forceUnlock()).isTrue();
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isNotNull();
        assertThatThrownBy(multi::unlock).isInstanceOf(LockLostException.class);
        assertThat(unlockFailure(multi)).isExactlyInstanceOf(IllegalMonitorStateException.class);
        assertLocksAgainAtOnce(multi);
    }

    private static RuntimeException unlockFailure(DistributedLock lock) {
        try {
            lock.unlock();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    @Test
    void anExplicitLeaseThatRanOutOnTheHoldersClockIsLostWithoutAskingRedis() throws Exception {
        DistributedLock lock = client.getLock("idiom-lease-end");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(200))).isTrue();
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThat(lock.getHoldCount()).isZero();
        assertThat(losses.poll(5, TimeUnit.SECONDS)).isNotNull();
        long scriptCalls = CommandStats.scriptCalls(servers.server());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("clock");
        assertThat(CommandStats.scriptCalls(servers.server())).isEqualTo(scriptCalls);
        // this clock counts the lease from before the grant, Redis from the grant: Redis may still
        // hold the key for up to a round trip, so the next acquire may wait that long
        assertThat(lock.tryLock(2, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
    }
}
