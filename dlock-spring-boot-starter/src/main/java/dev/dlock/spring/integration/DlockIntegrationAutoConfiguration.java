package dev.dlock.spring.integration;

import dev.dlock.LockClient;
import dev.dlock.spring.DlockAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A {@link DlockLockRegistry} when Spring Integration is on the class path and the application
 * defines no {@link LockRegistry} of its own.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass({LockRegistry.class, LockClient.class})
@ConditionalOnBean(LockClient.class)
public class DlockIntegrationAutoConfiguration {

    /**
     * The registry on the application's client.
     *
     * @param client the dlock client
     * @return the registry
     */
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    public DlockLockRegistry dlockLockRegistry(LockClient client) {
        return new DlockLockRegistry(client);
    }
}
