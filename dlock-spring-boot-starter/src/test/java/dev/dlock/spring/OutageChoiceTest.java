package dev.dlock.spring;

import static dev.dlock.spring.WithLock.OnBusy.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockBackendException;
import dev.dlock.testing.RedisServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Redis failing while a call takes its lock: {@code onBusy = SKIP} jobs skip quietly (one WARN per
 * outage, a count when Redis answers again) unless told to throw, by the annotation or by
 * {@code dlock.skip-on-outage=false}; request methods throw, since Redis failing is never "busy".
 */
@ExtendWith(OutputCaptureExtension.class)
class OutageChoiceTest {
    private static RedisServer redis;
    private static ConfigurableApplicationContext skipping;
    private static ConfigurableApplicationContext throwing;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        skipping = TestContexts.withBeans(redis, List.of(Jobs.class), "dlock.command-timeout=1s",
                "logging.level.dev.dlock.spring=info");
        throwing = TestContexts.withBeans(redis, List.of(Jobs.class), "dlock.command-timeout=1s",
                "dlock.skip-on-outage=false");
    }

    @AfterAll
    static void stop() {
        redis.resume();
        skipping.close();
        throwing.close();
        redis.close();
    }

    @Test
    void jobsSkipQuietlyThroughAnOutageWhileRequestsAndJobsThatAskToThrowDo(CapturedOutput output) {
        Jobs jobs = skipping.getBean(Jobs.class);
        Jobs strictJobs = throwing.getBean(Jobs.class);
        redis.pause();
        try {
            assertThat(jobs.nightly()).isNull();
            assertThat(jobs.nightly()).isNull();
            assertThatThrownBy(jobs::nightlyThatThrows).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(jobs::withdraw).isInstanceOf(LockBackendException.class);
            assertThatThrownBy(strictJobs::nightly).as("dlock.skip-on-outage=false").isInstanceOf(LockBackendException.class);
            assertThat(jobs.requestThatSkips()).isNull();
            assertThat(jobs.runs()).as("runs during the outage").isZero();
        } finally {
            redis.resume();
        }
        assertThat(jobs.nightly()).isEqualTo("ran");
        assertThat(output.getOut().lines().filter(line -> line.contains(" WARN ") && line.contains("WithLockInterceptor")).toList())
                .as("WARN lines of @WithLock: one per application")
                .satisfiesExactlyInAnyOrder(
                        line -> assertThat(line).contains("Jobs.nightly() took lock 'nightly'")
                                .contains("so it was skipped (onOutage SKIP)"),
                        line -> assertThat(line).contains("Jobs.nightly() took lock 'nightly'")
                                .contains("so the call failed with LockBackendException"));
        assertThat(output.getOut()).doesNotContain("ERROR").contains("3 call(s) skipped, 2 call(s) failed");
    }

    @Test
    void skippingOnOutageNeedsAReturnTypeThatCanBeEmpty() {
        assertThatThrownBy(() -> TestContexts.withBeans(redis, List.of(Primitive.class)))
                .hasStackTraceContaining("Primitive.count(): onOutage = SKIP returns null when Redis fails");
    }

    static class Jobs {
        final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @WithLock(key = "'nightly'", waitTime = "0", onBusy = SKIP)
        public String nightly() {
            runs.incrementAndGet();
            return "ran";
        }

        @WithLock(key = "'nightly'", waitTime = "0", onBusy = SKIP, onOutage = WithLock.OnOutage.THROW)
        public String nightlyThatThrows() {
            runs.incrementAndGet();
            return "ran";
        }

        @WithLock(key = "'account'", waitTime = "0")
        public String withdraw() {
            runs.incrementAndGet();
            return "ran";
        }

        @WithLock(key = "'report'", waitTime = "0", onOutage = WithLock.OnOutage.SKIP)
        public String requestThatSkips() {
            runs.incrementAndGet();
            return "ran";
        }
    }

    static class Primitive {
        @WithLock(onOutage = WithLock.OnOutage.SKIP)
        public int count() {
            return 1;
        }
    }
}
