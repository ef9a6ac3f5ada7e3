package dev.dlock.spring.web;

import dev.dlock.LockBusyException;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * In a Spring MVC or WebFlux application: {@link LockBusyExceptionHandler}, so that a busy lock
 * answers {@code 409 Conflict} with its problem body, and {@link LockOutageExceptionHandler}, so
 * that a store outage answers {@code 503 Service Unavailable} with {@code Retry-After}, and no
 * advice of the application's is needed.
 */
@AutoConfiguration
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
public class DlockWebAutoConfiguration {

    /**
     * The handler of {@link LockBusyException}, after every advice of the application's.
     *
     * @return the handler
     */
    @Bean
    @ConditionalOnMissingBean
    public LockBusyExceptionHandler lockBusyExceptionHandler() {
        return new LockBusyExceptionHandler();
    }

    /**
     * The handler of {@link dev.dlock.LockBackendException}, after every advice of the application's.
     *
     * @return the handler
     */
    @Bean
    @ConditionalOnMissingBean
    public LockOutageExceptionHandler lockOutageExceptionHandler() {
        return new LockOutageExceptionHandler();
    }
}
