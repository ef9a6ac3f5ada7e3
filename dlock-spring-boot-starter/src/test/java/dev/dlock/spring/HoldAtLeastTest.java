package dev.dlock.spring;

import static dev.dlock.spring.WithLock.OnBusy.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code holdAtLeast} between two applications: a job that ends at once on one host keeps its lock
 * for the minimum hold, so the same job on another host, whose schedule is a little behind, skips
 * instead of running a second time; after the minimum hold it runs.
 */
class HoldAtLeastTest {
    private static final Duration MINIMUM = Duration.ofSeconds(2);
    private static TestContexts.TwoApplications apps;

    @BeforeAll
    static void start() {
        apps = TestContexts.TwoApplications.start(Jobs.class);
    }

    @AfterAll
    static void stop() {
        apps.close();
    }

    @Test
    void aQuickJobKeepsItsLockForTheMinimumHoldAcrossApplications() {
        Jobs here = apps.first().getBean(Jobs.class);
        Jobs there = apps.second().getBean(Jobs.class);
        long start = System.nanoTime();
        assertThat(here.report()).isEqualTo("ran");
        assertThat(there.report()).as("the other host, just behind").isNull();
        assertThat(here.report()).as("this host again").isNull();
        assertThat(apps.redis().keys("dlock:{report}")).as("still held in Redis").hasSize(1);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> there.report() != null);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(MINIMUM);
        assertThat(here.runs() + there.runs()).isEqualTo(2);
    }

    @Test
    void withoutAMinimumHoldTheOtherApplicationRunsRightAfter() {
        assertThat(apps.first().getBean(Jobs.class).plain()).isEqualTo("ran");
        assertThat(apps.second().getBean(Jobs.class).plain()).isEqualTo("ran");
    }

    static class Jobs {
        final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @WithLock(key = "'report'", waitTime = "0", onBusy = SKIP, holdAtLeast = "2s")
        public String report() {
            runs.incrementAndGet();
            return "ran";
        }

        @WithLock(key = "'plain'", waitTime = "0", onBusy = SKIP)
        public String plain() {
            return "ran";
        }
    }
}
