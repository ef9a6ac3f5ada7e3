package dev.dlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.internal.acquire.ChannelWatch;
import dev.dlock.internal.acquire.PendingWake;
import dev.dlock.internal.acquire.WakeUps;
import dev.dlock.internal.redis.RedisWakeUps;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Which release messages end a waiter's wait, whenever the waiter gets round to looking. */
class ChannelWatchTest {

    private static final String CHANNEL = "dlock:{x}:released";

    @Test
    void aWaiterThatLooksLateGoesThroughEveryMessageSinceItsAttemptAndMissesNoneNamingIt() {
        WakeUps wakeUps = new WakeUps(new RedisWakeUps(List.of(new FakeNode("fake:1")), 1000));
        ChannelWatch watch = new ChannelWatch(wakeUps, CHANNEL, "client:7:q3");
        watch.join();
        watch.takeSignal();
        // while its attempt is on its way: a handoff to another waiter, then one to this waiter,
        // then one to a third
        wakeUps.onMessage(CHANNEL, "101:client:7:q1");
        wakeUps.onMessage(CHANNEL, "102:client:7:q3");
        wakeUps.onMessage(CHANNEL, "103:client:7:q9");
        AtomicReference<String> wokenBy = new AtomicReference<>();
        PendingWake wait = new PendingWake(wokenBy::set);
        watch.wakeOnMessage(wait);
        assertThat(wokenBy.get()).isEqualTo("102:client:7:q3");
        assertThat(watch.handedToken(wokenBy.get())).isEqualTo(102);
    }

    @Test
    void handoffsToOtherWaitersPassWhileAPlainReleaseWakesEveryone() {
        WakeUps wakeUps = new WakeUps(new RedisWakeUps(List.of(new FakeNode("fake:1")), 1000));
        ChannelWatch watch = new ChannelWatch(wakeUps, CHANNEL, "client:7:q3");
        watch.join();
        watch.takeSignal();
        AtomicReference<String> wokenBy = new AtomicReference<>();
        watch.wakeOnMessage(new PendingWake(wokenBy::set));
        wakeUps.onMessage(CHANNEL, "101:client:7:q1");
        assertThat(wokenBy.get()).isNull();
        wakeUps.onMessage(CHANNEL, "104");
        assertThat(wokenBy.get()).isEqualTo("104");
        assertThat(watch.handedToken(wokenBy.get())).isZero();
    }
}
