package dev.dlock.spring;

import dev.dlock.LockBusyException;
import dev.dlock.LockInterruptedException;
import static dev.dlock.LockKind.READ;
import static dev.dlock.LockKind.WRITE;
import static dev.dlock.spring.WithLock.OnBusy.SKIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockClient;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The annotation between two applications (two contexts, two clients) on one Redis. */
class WithLockAnnotationTest {
    private static RedisServer redis;
    private static ConfigurableApplicationContext first;
    private static ConfigurableApplicationContext second;
    private static Jobs firstJobs;
    private static Jobs secondJobs;
    private final ExecutorService executor = Executors.newCachedThreadPool();

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        first = TestContexts.start(redis, JobsConfiguration.class, "dlock.client-name=first");
        second = TestContexts.start(redis, JobsConfiguration.class, "dlock.client-name=second");
        firstJobs = first.getBean(Jobs.class);
        secondJobs = second.getBean(Jobs.class);
    }

    @AfterAll
    static void stop() {
        first.close();
        second.close();
        redis.close();
    }

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }

    /** Holds lock "job:ID" in the first application until the returned latch is counted down. */
    private CountDownLatch holdInFirst(String id) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        executor.submit(() -> firstJobs.hold(id, entered, release));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    @Test
    void sameKeyExcludesAcrossApplicationsDifferentKeysDoNot() throws Exception {
        CountDownLatch release = holdInFirst("a");
        int calls = secondJobs.calls();
        assertThatThrownBy(() -> secondJobs.once("a"))
                .isInstanceOfSatisfying(LockBusyException.class, e -> {
                    assertThat(e.lockName()).isEqualTo("job:a");
                    assertThat(e.waited()).isZero();
                })
                .hasMessageContaining("lock 'job:a' stayed busy").hasMessageContaining("Jobs.once()");
        assertThat(secondJobs.calls()).isEqualTo(calls);
        assertThat(secondJobs.once("b")).isEqualTo("b");
        release.countDown();
        assertThat(secondJobs.onceWhenFree("a")).isEqualTo("a");
    }

    @Test
    void skipReturnsEmptyOrNullWithoutCallingTheMethod() throws Exception {
        CountDownLatch release = holdInFirst("s");
        int calls = secondJobs.calls();
        assertThat(secondJobs.skipIfBusy("s")).isEmpty();
        secondJobs.skipVoid("s");
        assertThat(secondJobs.skipObject("s")).isNull();
        assertThat(secondJobs.calls()).isEqualTo(calls);
        release.countDown();
        assertThat(secondJobs.skipIfBusyWhenFree("s")).contains("s");
    }

    @Test
    void skipWithoutAWaitTimeSkipsAtOnceInsteadOfWaitingForTheHolder() throws Exception {
        CountDownLatch release = holdInFirst("k");
        try {
            Future<String> skipped = executor.submit(() -> secondJobs.skipWithoutWait("k"));
            // a wait without bound would still be waiting for the holder, who keeps the lock until released
            assertThat(skipped.get(30, TimeUnit.SECONDS)).isNull();
            assertThat(secondJobs.calls()).isZero();
        } finally {
            release.countDown();
        }
    }

    @Test
    void aFixedNameTakesPlaceholdersResolvedAtStartup() {
        assertThat(firstJobs.fixedName()).isTrue();
    }

    @Test
    void aWaiterGetsInOnceTheHolderLeftAndNotBefore() throws Exception {
        CountDownLatch release = holdInFirst("w");
        Future<Integer> waiter = executor.submit(() -> secondJobs.insideWhenEntering("w"));
        release.countDown();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).as("holders inside when the waiter entered").isZero();
    }

    @Test
    void aWaitThatEndsWhileHeldThrowsAfterTheWaitTime() throws Exception {
        CountDownLatch release = holdInFirst("t");
        long start = System.nanoTime();
        assertThatThrownBy(() -> secondJobs.waitBriefly("t")).isInstanceOf(LockBusyException.class)
                .hasMessageContaining("the whole waitTime of 300 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        release.countDown();
    }

    @Test
    void anInterruptedWaitIsAnInterruptNeitherBusyNorSkipped() {
        int calls = secondJobs.calls();
        try {
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> secondJobs.onceWhenFree("int")).isInstanceOf(LockInterruptedException.class)
                    .hasCauseInstanceOf(InterruptedException.class).hasMessageContaining("interrupted while waiting");
            assertThat(Thread.interrupted()).as("the interrupt flag set again").isTrue();

            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> secondJobs.skipIfBusyWhenFree("int")).isInstanceOf(LockInterruptedException.class);
            assertThat(Thread.interrupted()).isTrue();

            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> secondJobs.onceWhenFreeInterruptibly("int")).isExactlyInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).as("cleared, as an InterruptedException thrown by java.util.concurrent").isFalse();
        } finally {
            Thread.interrupted();
        }
        assertThat(secondJobs.calls()).isEqualTo(calls);
    }

    @Test
    void leaseTimeIsTheHoldsLeaseWithoutItTheWatchdogs() {
        assertThat(firstJobs.leaseInsideExplicit("l")).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(firstJobs.leaseInsideWatchdog("l")).isGreaterThan(Duration.ofSeconds(10));
        assertThat(redis.keys("dlock:{lease:*")).isEmpty();
    }

    @Test
    void emptyKeyLocksTheMethodsFullName() {
        assertThat(firstJobs.defaultKey()).isTrue();
    }

    @Test
    void readersShareWritersExclude() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        executor.submit(() -> firstJobs.read("doc", entered, release));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(secondJobs.readOnce("doc")).isEqualTo("doc");
        assertThatThrownBy(() -> secondJobs.write("doc")).isInstanceOf(LockBusyException.class);
        release.countDown();
    }

    @Test
    void aKeyThatEvaluatesToNullFailsNamingMethodAndExpression() {
        assertThatThrownBy(() -> firstJobs.ship(new Order(null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Jobs.ship()").hasMessageContaining("\"#order.id\"").hasMessageContaining("null");
    }

    @Test
    void lockIsReleasedWhenTheMethodThrows() {
        assertThatThrownBy(() -> firstJobs.fail("f")).hasMessage("boom");
        assertThat(redis.keys("dlock:{job:f}")).isEmpty();
    }

    record Order(String id) {
    }

    static class Jobs {
        static final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();
        private final LockClient client;

        Jobs(LockClient client) {
            this.client = client;
        }

        public int calls() {
            return calls.get();
        }

        @WithLock(key = "'job:' + #id", waitTime = "0")
        public String hold(String id, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
            inside.incrementAndGet();
            try {
                entered.countDown();
                release.await(60, TimeUnit.SECONDS);
                return id;
            } finally {
                inside.decrementAndGet();
            }
        }

        @WithLock(key = "'job:' + #p0", waitTime = "0")
        public String once(String id) {
            calls.incrementAndGet();
            return id;
        }

        @WithLock(key = "'job:' + #a0", waitTime = "30s")
        public String onceWhenFree(String id) {
            return id;
        }

        @WithLock(key = "'job:' + #id", waitTime = "30s")
        public String onceWhenFreeInterruptibly(String id) throws InterruptedException {
            calls.incrementAndGet();
            return id;
        }

        @WithLock(key = "'job:' + #id", waitTime = "0", onBusy = SKIP)
        public Optional<String> skipIfBusy(String id) {
            calls.incrementAndGet();
            return Optional.of(id);
        }

        @WithLock(key = "'job:' + #id", waitTime = "30s", onBusy = SKIP)
        public Optional<String> skipIfBusyWhenFree(String id) {
            return Optional.of(id);
        }

        @WithLock(key = "'job:' + #id", waitTime = "0", onBusy = SKIP)
        public void skipVoid(String id) {
            calls.incrementAndGet();
        }

        @WithLock(key = "'job:' + #id", waitTime = "0", onBusy = SKIP)
        public String skipObject(String id) {
            calls.incrementAndGet();
            return id;
        }

        @WithLock(key = "'job:' + #id", onBusy = SKIP)
        public String skipWithoutWait(String id) {
            calls.incrementAndGet();
            return id;
        }

        @WithLock(name = "${test.report-prefix:reports}:nightly-report")
        public boolean fixedName() {
            return client.getLock("reports:nightly-report").isHeldByCurrentThread();
        }

        @WithLock(key = "'job:' + #id", waitTime = "${test.no-such-property:30s}")
        public int insideWhenEntering(String id) {
            return inside.get();
        }

        @WithLock(key = "'job:' + #id", waitTime = "300ms")
        public String waitBriefly(String id) {
            return id;
        }

        @WithLock(key = "'lease:' + #id", leaseTime = "2s", waitTime = "0")
        public Duration leaseInsideExplicit(String id) {
            return client.getLock("lease:" + id).remainingLease();
        }

        @WithLock(key = "'lease:' + #id", waitTime = "0")
        public Duration leaseInsideWatchdog(String id) {
            return client.getLock("lease:" + id).remainingLease();
        }

        @WithLock(waitTime = "0")
        public boolean defaultKey() {
            return client.getLock(Jobs.class.getName() + ".defaultKey").isHeldByCurrentThread();
        }

        @WithLock(key = "'doc:' + #id", kind = READ, waitTime = "0")
        public String read(String id, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
            entered.countDown();
            release.await(60, TimeUnit.SECONDS);
            return id;
        }

        @WithLock(key = "'doc:' + #id", kind = READ, waitTime = "0")
        public String readOnce(String id) {
            return id;
        }

        @WithLock(key = "'doc:' + #id", kind = WRITE, waitTime = "0")
        public String write(String id) {
            return id;
        }

        @WithLock(key = "#order.id")
        public void ship(Order order) {
        }

        @WithLock(key = "'job:' + #id")
        public void fail(String id) {
            throw new IllegalStateException("boom");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DlockAutoConfiguration.class)
    static class JobsConfiguration {
        @Bean
        Jobs jobs(LockClient client) {
            return new Jobs(client);
        }
    }
}
