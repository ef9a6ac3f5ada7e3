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
 * {@code slowHoldThreshold} and {@code slowWaitThreshold}: one WARN when a hold or a wait passes
 * its threshold and one when it ends, with the fields an operator needs. The test's SLF4J binding
 * is slf4j-simple, which writes to the current System.err: the test reads it from there.
 */
class SlowLockWarningTest {

    private static final Duration AWAIT = Duration.ofSeconds(20);
    private static final Duration THRESHOLD = Duration.ofMillis(300);
    /** Long enough for many more checks (a tenth of the threshold apart) after a warning. */
    private static final Duration NO_REPEAT = Duration.ofMillis(600);

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    private String log() {
        return stderr.text();
    }

    /** The WARN lines that contain {@code text}. */
    private List<String> warnings(String text) {
        return log().lines().filter(line -> line.contains(" WARN ") && line.contains(text)).toList();
    }

    @Test
    void aSlowHoldIsLoggedOnceWhenItPassesTheThresholdAndOnceAtRelease() {
        DistributedLock lock = servers.newClient(builder -> builder.clientName("slow-holder")
                .slowHoldThreshold(THRESHOLD).captureAcquireSite(true)).getLock("report");
        lock.lock();

        await().atMost(AWAIT).until(() -> warnings("slow hold:").size() == 1);
        await().during(NO_REPEAT).atMost(AWAIT).until(() -> warnings("slow hold").size() == 1);
        String passed = warnings("slow hold:").get(0);
        assertThat(passed).contains("lock 'report'", "longer than slowHoldThreshold 300 ms",
                "slow-holder@", "thread " + Thread.currentThread().getName(),
                "acquired at dev.dlock.SlowLockWarningTest.aSlowHoldIsLoggedOnce");

        lock.unlock();
        assertThat(warnings("slow hold ended:")).singleElement().asString()
                .contains("lock 'report' released after", "slow-holder@",
                        "acquired at dev.dlock.SlowLockWarningTest.aSlowHoldIsLoggedOnce");
        assertThat(warnings("slow hold")).hasSize(2);
    }

    @Test
    void aSlowWaitIsLoggedOnceWithItsHolderAndOnceWhenItEnds() throws Exception {
        DistributedLock held = servers.newClient(builder -> builder.clientName("the-holder")).getLock("busy");
        held.lock();
        DistributedLock waiting = servers.newClient(builder -> builder.clientName("the-waiter")
                .slowWaitThreshold(THRESHOLD).captureAcquireSite(true)).getLock("busy");
        CompletableFuture<Boolean> acquired = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                acquired.complete(waiting.tryLock(20, TimeUnit.SECONDS));
                waiting.unlock();
            } catch (Throwable e) {
                acquired.completeExceptionally(e);
            }
        }, "waiting-thread");
        waiter.start();

        await().atMost(AWAIT).until(() -> warnings("slow wait:").size() == 1);
        await().during(NO_REPEAT).atMost(AWAIT).until(() -> warnings("slow wait").size() == 1);
        assertThat(warnings("slow wait:").get(0)).contains("the-waiter@", "thread waiting-thread",
                "for lock 'busy'", "longer than slowWaitThreshold 300 ms", "held by the-holder@",
                "thread " + Thread.currentThread().getName(), "lease left",
                "acquire called at dev.dlock.SlowLockWarningTest.lambda$aSlowWaitIsLoggedOnce");

        held.unlock();
        assertThat(acquired.get(AWAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        waiter.join(AWAIT.toMillis());
        assertThat(warnings("slow wait ended:")).singleElement().asString()
                .contains("the-waiter@", "for lock 'busy'", ": acquired");
        assertThat(warnings("slow wait")).hasSize(2);
        assertThat(warnings("slow hold")).isEmpty();
    }

    @Test
    void nothingIsLoggedWithoutThresholdsOrBelowThem() {
        DistributedLock quiet = servers.newClient().getLock("quiet");
        quiet.lock();
        DistributedLock quick = servers.newClient(builder -> builder.slowHoldThreshold(Duration.ofMinutes(1))
                .slowWaitThreshold(Duration.ofMinutes(1))).getLock("quick");
        quick.lock();
        await().during(NO_REPEAT).atMost(AWAIT).until(() -> warnings("slow").isEmpty());
        quick.unlock();
        quiet.unlock();
        assertThat(warnings("slow")).isEmpty();
    }

    @Test
    void badThresholdsAreRefusedNamingTheValue() {
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-5), Duration.ofNanos(999_999),
                Duration.ofDays(366)}) {
            assertThatThrownBy(() -> LockClient.builder().slowHoldThreshold(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("slowHoldThreshold").hasMessageContaining(String.valueOf(bad));
            assertThatThrownBy(() -> LockClient.builder().slowWaitThreshold(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("slowWaitThreshold").hasMessageContaining(String.valueOf(bad));
        }
        assertThatThrownBy(() -> LockClient.builder().slowHoldThreshold(THRESHOLD).slowHoldThreshold(THRESHOLD))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("slowHoldThreshold");
        assertThatThrownBy(() -> LockClient.builder().captureAcquireSite(true).captureAcquireSite(false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("captureAcquireSite");
        assertThatThrownBy(() -> LockClient.builder().observer(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("observer");
    }
}
