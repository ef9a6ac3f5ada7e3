package dev.dlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockLostException;
import dev.dlock.PostgresStore;
import dev.dlock.RedisStore;
import dev.dlock.testing.RedisServers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The meters a client's locks produce through {@link DlockMetrics}, on a real redis-server. */
class DlockMetricsTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<LockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        for (int i = clients.size() - 1; i >= 0; i--) {
            clients.get(i).close();
        }
    }

    private LockClient client(UnaryOperator<LockClientBuilder> settings) {
        LockClient client = settings.apply(LockClient.builder().store(RedisStore.standalone(redis.server().uri()))).build();
        clients.add(client);
        return client;
    }

    private LockClient measured() {
        return client(builder -> builder.observer(DlockMetrics.of(registry)));
    }

    private LockClient unmeasured() {
        return client(builder -> builder);
    }

    private long waits(String outcome) {
        Timer timer = registry.find(DlockMetrics.ACQUIRE_WAIT).tags("kind", "reentrant", "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    private double counter(String name, String... tags) {
        return registry.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Test
    void contendedAcquisitionsAreTimedWithTheirOutcomesWhileWaitersAreCounted() throws Exception {
        int threads = 6;
        DistributedLock held = unmeasured().getLock("contended");
        held.lock();
        LockClient measured = measured();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                done.add(pool.submit(() -> {
                    DistributedLock lock = measured.getLock("contended");
                    lock.lock();
                    lock.unlock();
                }));
            }
            await().atMost(AWAIT).until(() -> gauge(DlockMetrics.WAITERS) == threads);
            assertThat(waits("acquired")).isZero();
            held.unlock();
            for (Future<?> each : done) {
                each.get(AWAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(waits("acquired")).isEqualTo(threads);
        assertThat(waits("busy") + waits("timed_out") + waits("error") + waits("interrupted")).isZero();
        assertThat(gauge(DlockMetrics.WAITERS)).isZero();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isZero();
        assertThat(registry.get(DlockMetrics.HOLD).tags("kind", "reentrant", "ending", "released").timer().count())
                .isEqualTo(threads);
    }

    @Test
    void aRefusedTryLockCountsAsBusyAndAnExpiredWaitAsTimedOut() throws InterruptedException {
        unmeasured().getLock("taken").lock();
        DistributedLock lock = measured().getLock("taken");

        assertThat(lock.tryLock()).isFalse();
        assertThat(waits("busy")).isEqualTo(1);

        assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(waits("timed_out")).isEqualTo(1);
        assertThat(waits("busy")).isEqualTo(1);
        assertThat(waits("acquired")).isZero();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isZero();
        assertThat(gauge(DlockMetrics.WAITERS)).isZero();
    }

    @Test
    void aForcedReleaseCountsOneLossAndTheHeldGaugeReturnsToZero() {
        DistributedLock lock = measured().getLock("forced");
        lock.lock();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isEqualTo(1);

        assertThat(unmeasured().getLock("forced").forceUnlock()).isTrue();

        await().atMost(AWAIT).until(() -> counter(DlockMetrics.LOSSES, "cause", "force_released") == 1);
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(counter(DlockMetrics.LOSSES)).as("every loss").isEqualTo(1);
        assertThat(counter(DlockMetrics.LOSSES, "kind", "reentrant", "cause", "force_released")).isEqualTo(1);
        assertThat(registry.get(DlockMetrics.HOLD).tags("ending", "lost").timer().count()).isEqualTo(1);
        assertThat(registry.find(DlockMetrics.HOLD).tags("ending", "released").timer()).isNull();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isZero();
    }

    @Test
    void renewalsAreCountedWhileAHoldOutlivesTwoWatchdogPeriods() {
        LockClient client = client(builder -> builder.observer(DlockMetrics.of(registry))
                .defaultLease(Duration.ofMillis(900)).commandTimeout(Duration.ofMillis(200)));
        DistributedLock lock = client.getLock("renewed");
        lock.lock();
        await().atMost(AWAIT).until(() -> counter(DlockMetrics.RENEWALS) >= 2);
        assertThat(registry.get(DlockMetrics.RENEWAL_LAG).timer().count()).isGreaterThanOrEqualTo(2);
        assertThat(counter(DlockMetrics.RENEWAL_FAILURES)).isZero();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isEqualTo(1);
        lock.unlock();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isZero();
    }

    @Test
    void scriptCallsAreTimedPerScriptAndOutcome() {
        DistributedLock lock = measured().getLock("calls");
        lock.lock();
        lock.unlock();
        // reported when the reply arrives, possibly just after the caller was given it
        await().atMost(AWAIT).until(() -> calls("acquire") == 1 && calls("release") == 1);
        assertThat(registry.find(DlockMetrics.STORE_CALLS).tags("outcome", "error").timers())
                .isNotEmpty().allMatch(timer -> timer.count() == 0);
    }

    @Test
    void postgresqlFunctionCallsAreTimedInTheSameMeter() {
        try (dev.dlock.testing.PostgresServer postgres = dev.dlock.testing.PostgresServer.start();
                LockClient client = LockClient.builder().store(PostgresStore.url(postgres.jdbcUrl()).polling(Duration.ofMillis(50)))
                        .observer(DlockMetrics.of(registry)).build()) {
            DistributedLock lock = client.getLock("pg-calls");
            lock.lock();
            lock.unlock();
            await().atMost(AWAIT).until(() -> calls("acquire") == 1 && calls("release") == 1);
        }
    }

    private long calls(String script) {
        Timer timer = registry.find(DlockMetrics.STORE_CALLS).tags("call", script, "outcome", "ok").timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void theMetersAlertsReadExistAtZeroBeforeTheFirstEvent() {
        DlockMetrics.of(registry);
        for (String kind : List.of("reentrant", "fair", "read", "write", "permit")) {
            for (String cause : List.of("expired", "gone", "force_released", "backend_unreachable")) {
                assertThat(registry.get(DlockMetrics.LOSSES).tags("kind", kind, "cause", cause).counter().count()).isZero();
            }
            for (String outcome : List.of("timed_out", "error")) {
                assertThat(registry.get(DlockMetrics.ACQUIRE_WAIT).tags("kind", kind, "outcome", outcome).timer().count())
                        .isZero();
            }
        }
        assertThat(registry.get(DlockMetrics.RENEWAL_FAILURES).counter().count()).isZero();
        assertThat(registry.get(DlockMetrics.RENEWAL_LAG).timer().count()).isZero();
        assertThat(registry.get(DlockMetrics.WAITERS).gauge().value()).isZero();

        MeterRegistry tagged = new SimpleMeterRegistry();
        DlockMetrics.builder(tagged).lockNameTag(name -> "order").build();
        assertThat(tagged.find(DlockMetrics.LOSSES).meters()).as("no meters without the lock tag beside tagged ones")
                .isEmpty();
    }

    @Test
    void theLockNameIsATagOnlyThroughTheGivenFunction() {
        LockClient tagged = client(builder -> builder.observer(DlockMetrics.builder(registry)
                .lockNameTag(name -> name.substring(0, name.indexOf(':'))).build()));
        for (String name : List.of("order:1", "order:2")) {
            DistributedLock lock = tagged.getLock(name);
            lock.lock();
            lock.unlock();
        }
        assertThat(registry.get(DlockMetrics.ACQUIRE_WAIT).tags("lock", "order", "outcome", "acquired").timer().count())
                .isEqualTo(2);
        assertThat(registry.getMeters()).noneMatch(meter -> meter.getId().getTags().stream()
                .anyMatch(tag -> tag.getValue().startsWith("order:")));
        assertThat(registry.get(DlockMetrics.LOSSES).tags("lock", "order", "kind", "reentrant", "cause", "gone")
                .counter().count()).as("at zero from the tag value's first event").isZero();

        MeterRegistry plain = new SimpleMeterRegistry();
        DistributedLock lock = client(builder -> builder.observer(DlockMetrics.of(plain))).getLock("order:3");
        lock.lock();
        lock.unlock();
        assertThat(plain.getMeters()).isNotEmpty().allMatch(meter -> meter.getId().getTag("lock") == null);
        assertThat(plain.getMeters().stream().map(Meter::getId).map(Meter.Id::getName))
                .contains(DlockMetrics.ACQUIRE_WAIT, DlockMetrics.HOLD, DlockMetrics.LOCKS_HELD, DlockMetrics.WAITERS,
                        DlockMetrics.RENEWALS, DlockMetrics.RENEWAL_FAILURES, DlockMetrics.RENEWAL_LAG,
                        DlockMetrics.STORE_CALLS);
    }

    @Test
    void anAcquireIsAnObservationWhenAnObservationRegistryIsGiven() throws InterruptedException {
        TestObservationRegistry observations = TestObservationRegistry.create();
        LockClient client = client(builder -> builder.observer(DlockMetrics.builder(registry)
                .observationRegistry(observations).build()));
        DistributedLock lock = client.getLock("traced");
        lock.lock();
        lock.unlock();

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(DlockMetrics.ACQUIRE_OBSERVATION, 1)
                .hasObservationWithNameEqualTo(DlockMetrics.ACQUIRE_OBSERVATION).that()
                .hasBeenStarted().hasBeenStopped()
                .hasLowCardinalityKeyValue("kind", "reentrant")
                .hasLowCardinalityKeyValue("outcome", "acquired")
                .hasHighCardinalityKeyValue("lock.name", "traced");
        assertThat(waits("acquired")).isEqualTo(1);
    }

    @Test
    void clientsSharingARegistryAddUpInTheGauges() {
        DistributedLock first = measured().getLock("first");
        DistributedLock second = measured().getLock("second");
        first.lock();
        second.lock();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isEqualTo(2);
        first.unlock();
        second.unlock();
        assertThat(gauge(DlockMetrics.LOCKS_HELD)).isZero();
    }
}
