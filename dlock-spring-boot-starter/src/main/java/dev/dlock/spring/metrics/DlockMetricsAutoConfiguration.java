package dev.dlock.spring.metrics;

import dev.dlock.LockClient;
import dev.dlock.micrometer.DlockMetrics;
import dev.dlock.spring.DlockAutoConfiguration;
import dev.dlock.spring.LockClientBuilderCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With {@code dev.dlock:dlock-micrometer} on the class path and a {@link MeterRegistry} bean (Spring
 * Boot's, from the actuator, or the application's own): the auto-configured {@link LockClient}
 * records dlock's meters in that registry, and each acquisition is an observation in the
 * application's {@link ObservationRegistry} when there is one (a span with a tracing bridge).
 * {@code dlock.metrics.enabled=false} turns it off.
 *
 * <p>The {@link DlockMetrics} is a bean: an application that wants other options (a
 * {@code lockNameTag}) defines its own {@code DlockMetrics} bean, and that one is added to the
 * client. It runs after Spring Boot's meter registries are defined and before the client's
 * auto-configuration, so its customizer is there when the client is built.
 */
@AutoConfiguration(before = DlockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass({LockClient.class, DlockMetrics.class, MeterRegistry.class})
@ConditionalOnBooleanProperty(name = {"dlock.enabled", "dlock.metrics.enabled"}, matchIfMissing = true)
@ConditionalOnBean(MeterRegistry.class)
@EnableConfigurationProperties(DlockMetricsProperties.class)
public class DlockMetricsAutoConfiguration {

    /**
     * The meters, in the application's registry.
     *
     * @param registry     where the meters go (the primary one when there are several)
     * @param observations the application's observation registry, if it has exactly one
     * @param properties   the {@code dlock.metrics.*} properties
     * @return the observer added to the auto-configured client
     */
    @Bean
    @ConditionalOnMissingBean
    public DlockMetrics dlockMetrics(MeterRegistry registry, ObjectProvider<ObservationRegistry> observations,
                                     DlockMetricsProperties properties) {
        DlockMetrics.Builder builder = DlockMetrics.builder(registry)
                .percentileHistograms(properties.isPercentileHistograms());
        observations.ifUnique(builder::observationRegistry);
        return builder.build();
    }

    /**
     * Adds the {@link DlockMetrics} bean to the auto-configured client's builder.
     *
     * @param metrics the observer
     * @return the customizer
     */
    @Bean
    public LockClientBuilderCustomizer dlockMetricsCustomizer(DlockMetrics metrics) {
        return builder -> builder.observer(metrics);
    }
}
