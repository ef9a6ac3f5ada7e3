package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.spring.integration.DlockIntegrationAutoConfiguration;
import dev.dlock.spring.integration.DlockLockRegistry;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.integration.support.locks.LockRegistry;

class DlockAutoConfigurationTest {
    private static RedisServer appRedis;
    private static RedisServer otherRedis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class, DlockIntegrationAutoConfiguration.class));

    @BeforeAll
    static void startServers() {
        appRedis = RedisServer.start();
        otherRedis = RedisServer.start();
    }

    @AfterAll
    static void stopServers() {
        appRedis.close();
        otherRedis.close();
    }

    @BeforeEach
    void emptyServers() {
        appRedis.flushAll();
        otherRedis.flushAll();
    }

    private String[] springDataRedis(RedisServer server) {
        return new String[] {"spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port()};
    }

    @Test
    void springDataRedisHostAndPortAloneAreEnough() {
        runner.withPropertyValues(springDataRedis(appRedis)).run(context -> {
            DistributedLock lock = context.getBean(LockClient.class).getLock("invoice:7");
            lock.lock();
            try {
                assertThat(appRedis.keys("*")).contains("dlock:{invoice:7}");
                assertThat(otherRedis.keys("*")).isEmpty();
            } finally {
                lock.unlock();
            }
        });
    }

    @Test
    void withoutSpringBootsRedisSupportTheSpringDataRedisPropertiesStillApply() {
        runner.withPropertyValues(springDataRedis(appRedis))
                .withClassLoader(new FilteredClassLoader(DataRedisConnectionDetails.class)).run(context -> {
                    DistributedLock lock = context.getBean(LockClient.class).getLock("no-data-redis");
                    lock.lock();
                    try {
                        assertThat(appRedis.keys("*")).contains("dlock:{no-data-redis}");
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void theApplicationsRedisConnectionDetailsWinOverTheProperties() {
        DataRedisConnectionDetails serviceConnection = new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(otherRedis.host(), otherRedis.port());
            }
        };
        runner.withPropertyValues(springDataRedis(appRedis))
                .withBean(DataRedisConnectionDetails.class, () -> serviceConnection).run(context -> {
                    DistributedLock lock = context.getBean(LockClient.class).getLock("service-connection");
                    lock.lock();
                    try {
                        assertThat(otherRedis.keys("*")).contains("dlock:{service-connection}");
                        assertThat(appRedis.keys("*")).isEmpty();
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void springDataRedisUrlIsUsed() {
        runner.withPropertyValues("spring.data.redis.url=redis://" + appRedis.host() + ":" + appRedis.port() + "/3",
                "spring.data.redis.port=1").run(context -> {
            DistributedLock lock = context.getBean(LockClient.class).getLock("by-url");
            lock.lock();
            try {
                assertThat(lock.isLocked()).isTrue();
                assertThat(appRedis.keys("*")).as("database 0 of the server").isEmpty();
                assertThat(context.getBean(LockClient.class).address()).contains(String.valueOf(appRedis.port()));
            } finally {
                lock.unlock();
            }
        });
    }

    @Test
    void dlockPropertiesOverrideSpringDataRedis() {
        runner.withPropertyValues(springDataRedis(appRedis))
                .withPropertyValues("dlock.redis.url=" + otherRedis.uri(), "dlock.key-prefix=billing:",
                        "dlock.client-name=billing-service", "dlock.default-lease=20s", "dlock.command-timeout=2s")
                .run(context -> {
                    DistributedLock lock = context.getBean(LockClient.class).getLock("invoice:7");
                    lock.lock();
                    try {
                        assertThat(otherRedis.keys("*")).contains("billing:{invoice:7}");
                        assertThat(appRedis.keys("*")).isEmpty();
                        assertThat(lock.info().holder()).get().extracting(h -> h.clientName()).isEqualTo("billing-service");
                        assertThat(lock.remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(20)).isGreaterThan(Duration.ofSeconds(10));
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void applicationNameIsTheDefaultClientNameAndCustomizersRunBeforeBuild() {
        runner.withPropertyValues(springDataRedis(appRedis))
                .withPropertyValues("spring.application.name=shop")
                .withBean(LockClientBuilderCustomizer.class, () -> builder -> builder.keyPrefix("custom:"))
                .run(context -> {
                    DistributedLock lock = context.getBean(LockClient.class).getLock("cart");
                    lock.lock();
                    try {
                        assertThat(appRedis.keys("*")).contains("custom:{cart}");
                        assertThat(lock.info().holder()).get().extracting(h -> h.clientName()).isEqualTo("shop");
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void unreachableRedisFailsStartupNamingTheAddress() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort,
                "dlock.command-timeout=1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isNotNull();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "dlock could not connect to Redis at redis://127.0.0.1:" + closedPort + " (from spring.data.redis.host/port)");
        });
    }

    @Test
    void springBootReportsTheUnreachableRedisWithTheAction() {
        RedisUnreachableException failure = new RedisUnreachableException("redis://127.0.0.1:1 (from dlock.redis.url)",
                new dev.dlock.LockBackendException("connection refused"));
        // the analyzers that need no context (others fail to instantiate here and are left out)
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader()).load(FailureAnalyzer.class,
                SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> { })))
                .anySatisfy(analyzer -> {
                    FailureAnalysis analysis = analyzer.analyze(new IllegalStateException("context failed", failure));
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .isEqualTo("dlock could not connect to Redis at redis://127.0.0.1:1 (from dlock.redis.url): connection refused");
                    assertThat(analysis.getAction()).contains("dlock.redis.url").contains("Start Redis there")
                            .as("no setting that turns locking off").doesNotContain("dlock.enabled");
                });
        RedisUnreachableException refused = new RedisUnreachableException("redis://127.0.0.1:1 (from dlock.redis.url)",
                new dev.dlock.LockBackendException("authentication failed", new IllegalStateException(
                        "WRONGPASS invalid username-password pair or user is disabled.")));
        assertThat(new DlockFailureAnalyzer().analyze(refused).getAction())
                .contains("credentials").contains("spring.data.redis.username").doesNotContain("Start Redis");
    }

    @Test
    void theDatabaseNumberIsKeptInTheAddressThatHealthAndTheLocksEndpointShow() {
        runner.withPropertyValues(springDataRedis(appRedis)).withPropertyValues("spring.data.redis.database=7").run(context -> {
            LockClient client = context.getBean(LockClient.class);
            String expected = "redis://" + appRedis.host() + ":" + appRedis.port() + "/7";
            assertThat(client.address()).isEqualTo(expected);
            assertThat(new dev.dlock.spring.actuate.DlockHealthIndicator(client).health(true).getDetails())
                    .containsEntry("redis", expected);
            assertThat(new dev.dlock.spring.actuate.LocksEndpoint(client).locks(null).redis()).isEqualTo(expected);
        });
    }

    @Test
    void aWrongPasswordsReportSaysToSetTheCredentialsNotToStartRedis() {
        try (RedisServer guarded = RedisServer.start()) {
            guarded.command("CONFIG", "SET", "requirepass", "right");
            runner.withPropertyValues(springDataRedis(guarded)).withPropertyValues("spring.data.redis.password=wrong")
                    .run(context -> {
                        assertThat(context).hasFailed();
                        FailureAnalysis analysis = new DlockFailureAnalyzer().analyze(context.getStartupFailure());
                        assertThat(analysis).isNotNull();
                        assertThat(analysis.getAction()).contains("refused the credentials")
                                .contains("spring.data.redis.username and .password").doesNotContain("Start Redis");
                    });
        }
    }

    @Test
    void aServerThatRefusesEvalshaIsReportedAsSuchNotAsDown() {
        try (RedisServer renamed = RedisServer.start("--rename-command", "EVALSHA", "")) {
            runner.withPropertyValues(springDataRedis(renamed)).run(context -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = new DlockFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis).isNotNull();
                assertThat(analysis.getDescription()).contains("refuses EVALSHA");
                assertThat(analysis.getAction()).contains("refuses a command dlock needs").doesNotContain("Start Redis");
            });
        }
    }

    @Test
    void aRefusedOptionIsNamedByItsProperty() {
        runner.withPropertyValues(springDataRedis(appRedis)).withPropertyValues("dlock.command-timeout=20s").run(context ->
                assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "dlock.command-timeout (commandTimeout) PT20S must be shorter than a third of defaultLease PT30S"));
    }

    @Test
    void twoAddressSettingsAreRefused() {
        runner.withPropertyValues("dlock.redis.url=" + appRedis.uri(), "dlock.redis.cluster.nodes=" + otherRedis.uri())
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("set one of dlock.redis.url, dlock.redis.cluster.nodes and dlock.redis.redlock.nodes"));
    }

    @Test
    void aCustomizersOptionWinsOverItsProperty() {
        LockClientBuilderCustomizer customizer = builder -> builder.keyPrefix("custom:").store(RedisStore.standalone(otherRedis.uri()));
        runner.withPropertyValues("dlock.redis.url=" + appRedis.uri(), "dlock.key-prefix=billing:",
                        "dlock.client-name=billing-service")
                .withBean(LockClientBuilderCustomizer.class, () -> customizer).run(context -> {
                    DistributedLock lock = context.getBean(LockClient.class).getLock("invoice:8");
                    lock.lock();
                    try {
                        assertThat(otherRedis.keys("*")).contains("custom:{invoice:8}");
                        assertThat(appRedis.keys("*")).isEmpty();
                        // a property no customizer set still applies
                        assertThat(lock.info().holder()).get().extracting(h -> h.clientName()).isEqualTo("billing-service");
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void theRedisPropertiesAreNestedAsSpringBootsOwn() {
        runner.withPropertyValues(springDataRedis(appRedis)).withPropertyValues(
                        "dlock.redis.cluster.nodes=" + otherRedis.uri(), "dlock.redis.url=" + otherRedis.uri())
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "2 of dlock.redis.url, dlock.redis.cluster.nodes and dlock.redis.redlock.nodes are set"));
        runner.withPropertyValues("dlock.redis.url=" + appRedis.uri(), "dlock.redis.replica-acks.replicas=1",
                        "dlock.redis.replica-acks.timeout=5s")
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "dlock.redis.replica-acks (replicaAcks) timeout PT5S must be shorter than commandTimeout"));
    }

    @Test
    void aRetiredRedisPropertyFailsTheStartupNamingItsNewName() {
        runner.withPropertyValues(springDataRedis(appRedis)).withPropertyValues("dlock.redis-uri=" + otherRedis.uri())
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "dlock.redis-uri is no longer read").hasStackTraceContaining("rename dlock.redis-uri to dlock.redis.url"));
        runner.withPropertyValues(springDataRedis(appRedis)).withPropertyValues("dlock.redlock-nodes[0]=" + otherRedis.uri(),
                        "dlock.replica-acks.replicas=1")
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "rename dlock.redlock-nodes to dlock.redis.redlock.nodes, rename dlock.replica-acks to dlock.redis.replica-acks"));
    }

    @Test
    void inMemoryStoreNeedsNoRedisAndRefusesARedisAddress() {
        runner.withPropertyValues("dlock.store=in-memory", "spring.data.redis.port=1", "dlock.slow-hold-threshold=1m",
                "dlock.capture-acquire-site=true").run(context -> {
                    DistributedLock lock = context.getBean(LockClient.class).getLock("local");
                    assertThat(lock.tryLock()).isTrue();
                    lock.unlock();
                });
        runner.withPropertyValues("dlock.store=in-memory", "dlock.redis.url=" + appRedis.uri())
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "dlock.store=in-memory keeps the locks in this JVM, and dlock.redis.url is set too"));
    }

    @Test
    void slowLockThresholdsAreProperties() {
        runner.withPropertyValues(springDataRedis(appRedis)).withPropertyValues("dlock.slow-wait-threshold=0s")
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
                        "dlock.slow-wait-threshold (slowWaitThreshold)"));
    }

    @Test
    void closingTheContextReleasesTheLocksAndStopsTheClientsThreads() {
        runner.withPropertyValues(springDataRedis(appRedis)).run(context -> {
            context.getBean(LockClient.class).getLock("held-at-shutdown").lock();
            assertThat(appRedis.keys("*")).contains("dlock:{held-at-shutdown}");
            assertThat(clientThreads()).isNotEmpty();
            context.close();
            assertThat(appRedis.keys("dlock:{*")).isEmpty();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(clientThreads()).isEmpty());
        });
    }

    /**
     * Threads of dlock and of the Lettuce resources it created; not the callback pool, which every
     * client of the JVM shares (its idle threads end after a minute, on JDKs without virtual threads).
     */
    static Set<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("dlock") || name.startsWith("lettuce"))
                .filter(name -> !name.startsWith("dlock-callback")).collect(Collectors.toSet());
    }

    @Test
    void disabledCreatesNoClient() {
        runner.withPropertyValues("dlock.enabled=false").run(context -> assertThat(context).doesNotHaveBean(LockClient.class));
    }

    @Test
    void lockRegistryOnlyWithSpringIntegrationAndNoRegistryOfTheApplication() {
        runner.withPropertyValues(springDataRedis(appRedis)).run(context ->
                assertThat(context).hasSingleBean(DlockLockRegistry.class));
        runner.withPropertyValues(springDataRedis(appRedis)).withClassLoader(new FilteredClassLoader(LockRegistry.class))
                .run(context -> assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(DlockLockRegistry.class));
        runner.withPropertyValues(springDataRedis(appRedis))
                .withBean("appRegistry", LockRegistry.class, org.springframework.integration.support.locks.DefaultLockRegistry::new)
                .run(context -> assertThat(context).doesNotHaveBean(DlockLockRegistry.class));
    }
}
