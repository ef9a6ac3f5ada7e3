package dev.dlock.spring;

import dev.dlock.LockBusyException;
import static dev.dlock.spring.WithLock.OnBusy.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @WithLock} on methods returning a Mono or a Flux: the lock is held from subscription until
 * the publisher ends, on no thread, and a busy lock fails (or empties) the publisher.
 */
class ReactiveWithLockTest {
    private static final Duration BLOCK = Duration.ofSeconds(30);
    private static TestContexts.TwoApplications apps;

    @BeforeAll
    static void start() {
        apps = TestContexts.TwoApplications.start(Rates.class);
    }

    @AfterAll
    static void stop() {
        apps.close();
    }

    @Test
    void aMonoHoldsTheLockFromSubscriptionUntilItEnds() {
        Rates rates = apps.first().getBean(Rates.class);
        Mono<Boolean> refresh = rates.refresh("eur");
        assertThat(apps.redis().keys("dlock:{rates:eur}")).as("not subscribed yet: not taken").isEmpty();
        assertThat(refresh.block(BLOCK)).as("held while the Mono ran, after a delay on another thread").isTrue();
        assertThat(apps.redis().keys("dlock:{rates:eur}")).as("released when it ended").isEmpty();
    }

    @Test
    void aFluxHoldsTheLockWhileItEmits() {
        List<Boolean> held = apps.first().getBean(Rates.class).stream("usd").collectList().block(BLOCK);
        assertThat(held).containsExactly(true, true, true);
        assertThat(apps.redis().keys("dlock:{rates:usd}")).isEmpty();
    }

    @Test
    void aBusyLockFailsOrEmptiesThePublisherWithoutSubscribingToTheMethods() {
        Rates here = apps.first().getBean(Rates.class);
        Rates there = apps.second().getBean(Rates.class);
        LockClient client = apps.first().getBean(LockClient.class);
        Mono<Boolean> holding = here.holdFor("gbp", Duration.ofSeconds(2));
        holding.subscribe();
        org.awaitility.Awaitility.await().atMost(BLOCK).until(() -> client.getLock("rates:gbp").isLocked());
        assertThatThrownBy(() -> there.refreshOnce("gbp").block(BLOCK)).isInstanceOf(LockBusyException.class)
                .hasMessageContaining("lock 'rates:gbp' stayed busy").hasMessageContaining("not subscribed to");
        assertThat(there.refreshOrSkip("gbp").block(BLOCK)).as("SKIP: empty").isNull();
        assertThat(there.refreshedWithoutLock()).isZero();
    }

    @Test
    void aSubscriptionCancelledWhileItWaitsLeavesTheLockFreeOnceTheHolderReleases() throws Exception {
        Rates here = apps.first().getBean(Rates.class);
        DistributedLock lock = apps.second().getBean(LockClient.class).getLock("rates:chf");
        LockHandle holder = lock.acquireAsync().get(30, TimeUnit.SECONDS);
        try {
            // a timeout() downstream cancels the subscription while the call waits for the busy lock
            assertThat(here.refreshWithoutBound("chf").timeout(Duration.ofMillis(300))
                    .onErrorResume(TimeoutException.class, e -> Mono.just(false)).block(BLOCK)).isFalse();
            assertThat(here.refresh("chf").timeout(Duration.ofMillis(300))
                    .onErrorResume(TimeoutException.class, e -> Mono.just(false)).block(BLOCK)).isFalse();
            Awaitility.await("the abandoned waiters gone").atMost(BLOCK)
                    .until(() -> lock.info().waitingClients() == 0);
        } finally {
            holder.release();
        }
        Optional<LockHandle> next = lock.tryAcquireAsync(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
        assertThat(next).as("the lock free for others once its holder released it").isPresent();
        next.get().release();
        assertThat(apps.redis().keys("dlock:{rates:chf}")).isEmpty();
    }

    static class Rates {
        private final LockClient client;
        private int refreshedWithoutLock;

        Rates(LockClient client) {
            this.client = client;
        }

        public int refreshedWithoutLock() {
            return refreshedWithoutLock;
        }

        @WithLock(key = "'rates:' + #currency", waitTime = "5s")
        public Mono<Boolean> refresh(String currency) {
            return Mono.delay(Duration.ofMillis(100)).map(tick -> client.getLock("rates:" + currency).isLocked());
        }

        @WithLock(key = "'rates:' + #currency")
        public Mono<Boolean> refreshWithoutBound(String currency) {
            return Mono.fromCallable(() -> ++refreshedWithoutLock > 0);
        }

        @WithLock(key = "'rates:' + #currency", waitTime = "5s")
        public Flux<Boolean> stream(String currency) {
            return Flux.interval(Duration.ofMillis(20)).take(3).map(tick -> client.getLock("rates:" + currency).isLocked());
        }

        @WithLock(key = "'rates:' + #currency", waitTime = "0")
        public Mono<Boolean> holdFor(String currency, Duration duration) {
            return Mono.delay(duration).thenReturn(true);
        }

        @WithLock(key = "'rates:' + #currency", waitTime = "0")
        public Mono<Boolean> refreshOnce(String currency) {
            return Mono.fromCallable(() -> ++refreshedWithoutLock > 0);
        }

        @WithLock(key = "'rates:' + #currency", waitTime = "0", onBusy = SKIP)
        public Mono<Boolean> refreshOrSkip(String currency) {
            return Mono.fromCallable(() -> ++refreshedWithoutLock > 0);
        }
    }
}
