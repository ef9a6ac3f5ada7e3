package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import dev.dlock.MixedKindsTest.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A release with a minimum hold ("hold at least"): given back before the minimum, the lock stays
 * held for what is left of it and then frees itself; given back after it, it is freed at once.
 */
class MinimumHoldTest {

    private static final Duration MINIMUM = Duration.ofMillis(700);

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(3).withInMemory().withRedlockNodeTimeout(Duration.ofMillis(250));

    static Stream<Arguments> everyKindOnEveryTopology() {
        List<Arguments> cases = new ArrayList<>();
        for (Topology topology : servers.topologies()) {
            for (Kind kind : Kind.values()) {
                cases.add(Arguments.of(topology, kind));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("everyKindOnEveryTopology")
    void aHandleReleasedEarlyStaysHeldUntilTheMinimumHasPassed(Topology topology, Kind kind) {
        LockClient holder = servers.newClient(topology);
        LockClient rival = servers.newClient(topology);
        // a semaphore of two: the rival takes both permits, so a permit held past the release shows
        Kind rivalKind = kind == Kind.READ ? Kind.WRITE : kind;
        String name = "minimum-" + kind;

        long before = System.nanoTime();
        LockHandle held = kind.tryOnce(holder, name).orElseThrow();
        held.releaseHoldingAtLeast(MINIMUM);
        assertThat(held.isValid()).isFalse();
        assertThat(blockedForRival(rival, rivalKind, name)).as("taken right after the release").isFalse();

        AtomicReference<Long> freedAfterNanos = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            if (blockedForRival(rival, rivalKind, name)) {
                freedAfterNanos.set(System.nanoTime() - before);
                return true;
            }
            return false;
        });
        assertThat(Duration.ofNanos(freedAfterNanos.get())).isGreaterThanOrEqualTo(MINIMUM);
    }

    /** Whether the rival got the name (and gave it back): for a semaphore, both of its two permits. */
    private static boolean blockedForRival(LockClient rival, Kind kind, String name) {
        List<LockHandle> taken = new ArrayList<>();
        try {
            int wanted = kind == Kind.PERMIT ? 2 : 1;
            for (int i = 0; i < wanted; i++) {
                Optional<LockHandle> handle = kind.tryOnce(rival, name);
                if (handle.isEmpty()) {
                    return false;
                }
                taken.add(handle.get());
            }
            return true;
        } finally {
            taken.forEach(LockHandle::release);
        }
    }

    @Test
    void anUnlockedThreadBoundLockStaysHeldForTheRestOfTheMinimumEvenForItsOwnThread() {
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS).getLock("cron-job");
        DistributedLock rival = servers.newClient(Topology.ONE_REDIS).getLock("cron-job");
        long before = System.nanoTime();
        lock.lock();
        lock.unlockHoldingAtLeast(MINIMUM);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.tryLock()).isFalse();
        assertThat(rival.tryLock()).isFalse();
        assertThat((Long) servers.server().command("PTTL", "dlock:{cron-job}")).isBetween(1L, MINIMUM.toMillis() + 1);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(rival::tryLock);
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(MINIMUM);
        rival.unlock();
    }

    @Test
    void aKeptLockStillNamesItsHolderAfterTheHoldersClientClosed() {
        LockClient holder = servers.newClient(Topology.ONE_REDIS, builder -> builder.clientName("cron-host"));
        DistributedLock lock = holder.getLock("kept");
        lock.lock();
        lock.unlockHoldingAtLeast(Duration.ofMinutes(1));
        holder.close();
        LockInfo info = servers.newClient(Topology.ONE_REDIS).getLock("kept").info();
        assertThat(info.isLocked()).isTrue();
        assertThat(info.holder()).hasValueSatisfying(who -> assertThat(who.clientName()).isEqualTo("cron-host"));
    }

    @Test
    void aReleaseAfterTheMinimumFreesTheLockAtOnce() throws Exception {
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS).getLock("long-job");
        DistributedLock rival = servers.newClient(Topology.ONE_REDIS).getLock("long-job");
        lock.lock();
        lock.unlockHoldingAtLeast(Duration.ZERO);
        assertThat(rival.tryLock()).isTrue();
        rival.unlock();

        lock.lock();
        await().pollDelay(Duration.ofMillis(60)).until(() -> true);
        lock.unlockHoldingAtLeast(Duration.ofMillis(50));
        assertThat(rival.tryLock()).isTrue();
        rival.unlock();
    }

    @Test
    void onlyTheLastUnlockOfAReenteredLockKeepsTheMinimum() {
        DistributedLock lock = servers.newClient(Topology.ONE_REDIS).getLock("reentered");
        lock.lock();
        lock.lock();
        lock.unlockHoldingAtLeast(Duration.ofMinutes(5));
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(servers.server().keys("dlock:{reentered}")).isEmpty();
    }

    @Test
    void aLostHoldIsReportedAndTheLockLeftAlone() {
        LockClient client = servers.newClient(Topology.ONE_REDIS);
        LockHandle held = client.getLock("stolen").tryAcquireAsync(Duration.ZERO).join().orElseThrow();
        assertThat(servers.newClient(Topology.ONE_REDIS).getLock("stolen").forceUnlock()).isTrue();
        LockHandle thief = servers.newClient(Topology.ONE_REDIS).getLock("stolen").tryAcquireAsync(Duration.ZERO).join()
                .orElseThrow();
        assertThatThrownBy(() -> held.releaseHoldingAtLeast(Duration.ofMinutes(1))).isInstanceOf(LockLostException.class);
        assertThat(thief.isValid()).isTrue();
        assertThat((Long) servers.server().command("PTTL", "dlock:{stolen}")).isGreaterThan(Duration.ofMinutes(1).toMillis() / 4);
        thief.release();
    }

    @Test
    void badMinimumsAreRefusedAndReleaseNothing() {
        LockHandle held = servers.newClient(Topology.ONE_REDIS).getLock("bad").tryAcquireAsync(Duration.ZERO).join()
                .orElseThrow();
        assertThatThrownBy(() -> held.releaseHoldingAtLeast(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() -> held.releaseHoldingAtLeast(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(held.isValid()).isTrue();
        held.release();
    }
}
