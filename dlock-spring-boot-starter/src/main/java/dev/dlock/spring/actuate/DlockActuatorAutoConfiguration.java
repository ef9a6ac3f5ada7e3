package dev.dlock.spring.actuate;

import dev.dlock.LockClient;
import dev.dlock.spring.DlockAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Spring Boot's actuator on the class path: the {@code locks} endpoint (exposed like any
 * endpoint, {@code management.endpoints.web.exposure.include=locks}) and the {@code dlock} health
 * indicator ({@code management.health.dlock.enabled=false} turns it off).
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass(LockClient.class)
@ConditionalOnBean(LockClient.class)
public class DlockActuatorAutoConfiguration {

    /** The endpoint, when the actuator's endpoint support is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
    static class Endpoint {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        LocksEndpoint locksEndpoint(LockClient client) {
            return new LocksEndpoint(client);
        }
    }

    /** The health indicator, when Spring Boot's health support is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "dlockHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("dlock")
        DlockHealthIndicator dlockHealthIndicator(LockClient client) {
            return new DlockHealthIndicator(client);
        }
    }
}
