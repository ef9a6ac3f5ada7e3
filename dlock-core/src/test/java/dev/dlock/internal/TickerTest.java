package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.lettuce.RedisStores;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.TestSettings;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Deadlines and validity follow the client's ticker: a test moves time on without sleeping. */
class TickerTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final ManualTicker ticker = new ManualTicker();
    private LockEngine engine;

    @BeforeEach
    void startEngine() {
        Settings settings = TestSettings.settings(redis.server().uri(), null, null, null, null, null, null, null);
        engine = new LockEngine(settings, RedisStores.connecting(null), List.of(), ticker);
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    @Test
    void aBoundedWaitEndsWhenTheTickerPassesItsDeadline() {
        try (LockClient other = LockClient.create(RedisStore.standalone(redis.server().uri()))) {
            DistributedLock held = other.getLock("ticker-deadline");
            held.lock(Duration.ofMinutes(5));

            Acquisition waiting = engine.acquire(engine.target("ticker-deadline"), LockKind.REENTRANT, 30_000,
                    TimeUnit.SECONDS.toNanos(10), "");
            // waiting: the wait's own timer and the bound's (WaitBound, the wait and its overrun)
            await().atMost(Duration.ofSeconds(10)).until(() -> ticker.pendingOneShots() == 2);
            ticker.advance(Duration.ofSeconds(9));
            assertThat(waiting.result()).isNotDone();

            ticker.advance(Duration.ofSeconds(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> waiting.result().isDone());
            assertThat(waiting.result().join()).as("not acquired within the wait").isNull();
            assertThat(held.isLocked()).isTrue();
        }
    }

    @Test
    void aHoldIsKnownInvalidOnceTheTickerPassesItsLease() {
        Acquisition acquisition = engine.acquire(engine.target("ticker-lease"), LockKind.REENTRANT, 60_000, 0, "");
        AcquireReply.Granted grant = acquisition.result().join();
        assertThat(grant).isNotNull();
        Hold hold = engine.register(acquisition, grant, false);
        assertThat(hold.isKnownInvalid()).isFalse();
        assertThat(hold.remainingNanos()).isPositive().isLessThanOrEqualTo(TimeUnit.MINUTES.toNanos(1));

        ticker.advance(Duration.ofSeconds(59));
        assertThat(hold.isKnownInvalid()).isFalse();
        ticker.advance(Duration.ofSeconds(1));
        assertThat(hold.isKnownInvalid()).isTrue();
        assertThat(hold.remainingNanos()).isZero();
    }
}
