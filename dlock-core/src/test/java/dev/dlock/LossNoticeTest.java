package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A forced release reaches the holder's client through its holder channel, long before the next
 * renewal (every 10 s under the default 30 s lease) would have found the key gone.
 */
class LossNoticeTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    private static final Duration RENEWAL_PERIOD = LockClient.DEFAULT_LEASE.dividedBy(3);


    /** Both clients have subscribed their holder channel. */
    private void awaitHolderChannels(int clientCount) {
        await().atMost(Duration.ofSeconds(10)).until(() ->
                ((List<?>) servers.server().command("PUBSUB", "CHANNELS", "dlock:client:*")).size() == clientCount);
    }

    @Test
    void whenLostAndTheListenerHearOfAForcedReleaseAtOnce() throws Exception {
        CompletableFuture<Long> listenerTold = new CompletableFuture<>();
        LockClient holder = servers.newClient(builder -> builder
                .listener(loss -> listenerTold.complete(System.nanoTime())));
        LockClient operator = servers.newClient();
        awaitHolderChannels(2);
        LockHandle handle = holder.getLock("noticed").acquireAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture<Long> whenLost = handle.whenLost().thenApply(loss -> System.nanoTime());

        long forcedAt = System.nanoTime();
        assertThat(operator.getLock("noticed").forceUnlock()).isTrue();

        long handleMs = TimeUnit.NANOSECONDS.toMillis(whenLost.get(20, TimeUnit.SECONDS) - forcedAt);
        long listenerMs = TimeUnit.NANOSECONDS.toMillis(listenerTold.get(20, TimeUnit.SECONDS) - forcedAt);
        System.out.printf("LossNoticeTest: forced release heard by whenLost after %d ms, by the listener after %d ms "
                + "(next renewal: within %d ms)%n", handleMs, listenerMs, RENEWAL_PERIOD.toMillis());
        assertThat(handleMs).as("before a renewal could have noticed").isLessThan(RENEWAL_PERIOD.toMillis() / 2);
        assertThat(listenerMs).isLessThan(RENEWAL_PERIOD.toMillis() / 2);
        assertThat(handle.whenLost().get().getMessage()).contains("force-released");
        assertThat(handle.whenLost().get().reason()).isEqualTo(LockObserver.LossCause.FORCE_RELEASED);
        assertThatThrownBy(handle::release).isInstanceOfSatisfying(LockLostException.class,
                lost -> assertThat(lost.reason()).isEqualTo(LockObserver.LossCause.FORCE_RELEASED));
    }

    @Test
    void aThreadBoundHoldReadsLostAtOnceAfterAForcedRelease() throws Exception {
        LockClient holder = servers.newClient();
        LockClient operator = servers.newClient();
        awaitHolderChannels(2);
        DistributedLock lock = holder.getLock("noticed-thread");
        lock.lock();
        assertThat(operator.getLock("noticed-thread").forceUnlock()).isTrue();
        await().pollInSameThread().atMost(RENEWAL_PERIOD.dividedBy(2)).until(() -> !lock.isHeldByCurrentThread());
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void anExplicitLeaseEndIsReportedByTheHoldersClock() throws Exception {
        CompletableFuture<LockLostException> told = new CompletableFuture<>();
        LockClient holder = servers.newClient(builder -> builder.listener(told::complete));
        LockHandle handle = holder.getLock("lease-end").tryAcquireAsync(Duration.ZERO, Duration.ofMillis(300))
                .get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(handle.whenLost().get(10, TimeUnit.SECONDS).getMessage()).contains("ran out on this client's clock");
        assertThat(told.get(10, TimeUnit.SECONDS).lockName()).isEqualTo("lease-end");
        assertThat(told.get().reason()).isEqualTo(LockObserver.LossCause.EXPIRED);
    }
}
