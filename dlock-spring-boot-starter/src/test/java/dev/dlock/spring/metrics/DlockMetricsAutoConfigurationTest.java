package dev.dlock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.micrometer.DlockMetrics;
import dev.dlock.spring.WithLock;
import dev.dlock.spring.DlockAutoConfiguration;
import dev.dlock.testing.RedisServers;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The auto-configured client records dlock's meters in the application's MeterRegistry. */
class DlockMetricsAutoConfigurationTest {
    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class, DlockMetricsAutoConfiguration.class))
            .withBean(Reports.class);

    private ApplicationContextRunner withRedis() {
        return runner.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
                "spring.data.redis.port=" + redis.server().port());
    }

    private static ApplicationContextRunner withSimpleRegistry(ApplicationContextRunner runner) {
        return runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new);
    }

    private static double acquiredCount(MeterRegistry registry) {
        Timer timer = registry.find(DlockMetrics.ACQUIRE_WAIT).tag("outcome", "acquired").timer();
        return timer == null ? 0 : timer.count();
    }

    private static List<String> dlockMeters(AssertableApplicationContext context) {
        return context.getBean(MeterRegistry.class).getMeters().stream().map(meter -> meter.getId().getName())
                .filter(name -> name.startsWith("dlock.")).toList();
    }

    @Test
    void aLockedMethodCallIsRecordedInTheApplicationsRegistry() {
        withSimpleRegistry(withRedis()).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(Reports.class).nightly();
            assertThat(acquiredCount(registry)).isEqualTo(1);
            Timer hold = registry.find(DlockMetrics.HOLD).tag("ending", "released").tag("kind", "reentrant").timer();
            assertThat(hold).isNotNull();
            assertThat(hold.count()).isEqualTo(1);
            assertThat(registry.get(DlockMetrics.LOCKS_HELD).gauge().value()).isZero();
        });
    }

    @Test
    void metricsEnabledFalseRecordsNone() {
        withSimpleRegistry(withRedis()).withPropertyValues("dlock.metrics.enabled=false").run(context -> {
            context.getBean(Reports.class).nightly();
            assertThat(context.getBean(Reports.class).runs()).isEqualTo(1);
            assertThat(context).doesNotHaveBean(DlockMetrics.class);
            assertThat(dlockMeters(context)).isEmpty();
        });
    }

    @Test
    void withoutAMeterRegistryOrWithoutDlockMicrometerTheClientStartsWithoutMetrics() {
        withRedis().run(context -> {
            assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(DlockMetrics.class);
            context.getBean(Reports.class).nightly();
        });
        withSimpleRegistry(withRedis()).withClassLoader(new FilteredClassLoader(DlockMetrics.class)).run(context -> {
            assertThat(context).hasSingleBean(LockClient.class).doesNotHaveBean(DlockMetricsAutoConfiguration.class);
            context.getBean(Reports.class).nightly();
            assertThat(dlockMeters(context)).isEmpty();
        });
    }

    @Test
    void theApplicationsOwnDlockMetricsIsAddedOnce() {
        withRedis().withUserConfiguration(TaggedMetrics.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(Reports.class).nightly();
            Timer byLock = registry.find(DlockMetrics.ACQUIRE_WAIT).tags("lock", "report", "outcome", "acquired").timer();
            assertThat(byLock).as("the application's lockNameTag applies").isNotNull();
            assertThat(byLock.count()).as("one observer, not two").isEqualTo(1);
        });
    }

    @Test
    void percentileHistogramsAreAskedForWhenTheyAreOn() {
        assertThat(acquireWaitHistogram(withRedis())).isFalse();
        assertThat(acquireWaitHistogram(withRedis().withPropertyValues("dlock.metrics.percentile-histograms=true"))).isTrue();
    }

    /** Whether dlock asked for a histogram on the acquire timer (SimpleMeterRegistry would publish no buckets anyway). */
    private static boolean acquireWaitHistogram(ApplicationContextRunner runner) {
        Map<String, Boolean> asked = new ConcurrentHashMap<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                asked.put(id.getName(), Boolean.TRUE.equals(config.isPercentileHistogram()));
                return config;
            }
        });
        runner.withBean(MeterRegistry.class, () -> registry).run(context -> context.getBean(Reports.class).nightly());
        assertThat(asked).containsKey(DlockMetrics.ACQUIRE_WAIT);
        return asked.get(DlockMetrics.ACQUIRE_WAIT);
    }

    @Test
    void eachAcquisitionIsAnObservationInSpringBootsRegistryUnlessTurnedOffThere() {
        List<String> stopped = new CopyOnWriteArrayList<>();
        ObservationHandler<Observation.Context> recorder = new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context.getName() + " outcome=" + context.getLowCardinalityKeyValue("outcome").getValue());
            }
        };
        ApplicationContextRunner observed = withSimpleRegistry(withRedis())
                .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
                .withBean(ObservationHandler.class, () -> recorder);
        observed.run(context -> {
            context.getBean(Reports.class).nightly();
            assertThat(stopped).containsExactly(DlockMetrics.ACQUIRE_OBSERVATION + " outcome=acquired");
        });
        stopped.clear();
        observed.withPropertyValues("management.observations.enable.dlock=false").run(context -> {
            context.getBean(Reports.class).nightly();
            assertThat(stopped).isEmpty();
            assertThat(acquiredCount(context.getBean(MeterRegistry.class))).as("the meters stay").isEqualTo(1);
        });
    }

    @Test
    void dlockDisabledWithoutAClientOfTheApplicationsFailsTheStartupOfAnAnnotatedBean() {
        withSimpleRegistry(runner).withPropertyValues("dlock.enabled=false").run(context ->
                assertThat(context.getStartupFailure()).hasStackTraceContaining("Reports.nightly() cannot lock"));
    }

    /** A job guarded by a lock. */
    public static class Reports {
        private int runs;

        @WithLock(key = "'report:nightly'")
        public void nightly() {
            runs++;
        }

        public int runs() {
            return runs;
        }
    }

    /** The application's own DlockMetrics, with a lock tag. */
    @Configuration(proxyBeanMethods = false)
    static class TaggedMetrics {
        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        DlockMetrics dlockMetrics(MeterRegistry registry) {
            return DlockMetrics.builder(registry).lockNameTag(name -> name.substring(0, name.indexOf(':'))).build();
        }
    }
}
