package dev.dlock.spring;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The {@link LockClient} bean from the {@code dlock.*} properties (else the application's
 * {@code spring.data.redis.*}; with {@code dlock.store=postgres} the application's DataSource),
 * and the {@link WithLock @WithLock} advice.
 *
 * <p>The client connects when the context starts: a Redis that does not answer within the
 * command timeout fails the startup with a message naming the address and where it came from.
 * The client is closed when the context closes, releasing what it holds.
 *
 * <p>{@code dlock.enabled=false} turns off the auto-configured client only: the advice stays and
 * uses the application's own {@link LockClient} bean, and without one an annotated method fails
 * the startup (it never runs unlocked).
 */
@AutoConfiguration(afterName = {"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnClass(LockClient.class)
@EnableConfigurationProperties(DlockProperties.class)
@Import(DlockAutoConfiguration.AutoProxying.class)
public class DlockAutoConfiguration {

    /** The auto-configured client, unless {@code dlock.enabled=false} or the application has its own. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "dlock.enabled", matchIfMissing = true)
    static class Client {

        /**
         * The client, built from the properties and the customizers.
         *
         * @param properties   the {@code dlock.*} properties
         * @param environment  for {@code spring.data.redis.*} and {@code spring.application.name}
         * @param customizers  applied in order before the client is built
         * @param dataRedis    the address of the application's Spring Data Redis connection details
         * @param dataSources  the application's DataSource, for {@code dlock.store=postgres}
         * @return the connected client, closed with the context
         * @throws IllegalStateException Redis did not answer, or an option is refused; the message
         *                               names the address and its source
         */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        public LockClient dlockClient(DlockProperties properties, Environment environment,
                                      ObjectProvider<LockClientBuilderCustomizer> customizers,
                                      ObjectProvider<RedisAddressSource> dataRedis,
                                      ObjectProvider<DataSource> dataSources) {
            LockClientBuilder builder = LockClient.builder();
            String store = properties.getStore() == null ? "redis" : properties.getStore().strip();
            if (!store.equals("redis") && !store.equals("postgres")) {
                throw new IllegalStateException("dlock.store must be redis or postgres, got '" + store + "'");
            }
            RedisAddress address = store.equals("redis") ? RedisAddress.of(properties, environment, dataRedis.getIfUnique())
                    : null;
            try {
                if (address != null) {
                    address.applyTo(builder);
                } else {
                    usePostgres(builder, properties.getPostgres(), dataSources.getIfUnique());
                }
                set(properties.getRedlockNodeTimeout(), builder::redlockNodeTimeout);
                set(properties.getKeyPrefix(), builder::keyPrefix);
                set(properties.getDefaultLease(), builder::defaultLease);
                set(properties.getCommandTimeout(), builder::commandTimeout);
                set(properties.getWaiterTimeout(), builder::waiterTimeout);
                set(properties.getOutageTolerance(), builder::outageTolerance);
                set(clientName(properties, environment), builder::clientName);
                DlockProperties.ReplicaAcks acks = properties.getReplicaAcks();
                if (acks.getReplicas() > 0) {
                    builder.replicaAcks(acks.getReplicas(), acks.getTimeout());
                }
                customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
                return builder.build();
            } catch (LockBackendException e) {
                if (address == null) {
                    throw new IllegalStateException("dlock could not use PostgreSQL through the application's DataSource: "
                            + e.getMessage(), e);
                }
                throw new RedisUnreachableException(address.describe(), e);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new IllegalStateException(PropertyNames.inMessage(e.getMessage(), properties, address), e);
            }
        }

        /** {@code dlock.store=postgres}: the locks in the database of the application's DataSource. */
        private static void usePostgres(LockClientBuilder builder, DlockProperties.Postgres postgres, DataSource dataSource) {
            if (dataSource == null) {
                throw new IllegalStateException("dlock.store=postgres keeps the locks in the application's DataSource, "
                        + "and there is no single DataSource bean: configure spring.datasource.*");
            }
            builder.postgres(dataSource).postgresSchema(postgres.getSchema()).postgresCreateSchema(postgres.isCreateSchema());
            set(postgres.getPolling(), builder::postgresPolling);
        }

        private static String clientName(DlockProperties properties, Environment environment) {
            if (properties.getClientName() != null) {
                return properties.getClientName();
            }
            String application = environment.getProperty("spring.application.name");
            return application != null && !application.isBlank() && application.chars().noneMatch(Character::isWhitespace)
                    ? application : null;
        }

        private static <T> void set(T value, Consumer<T> option) {
            if (value != null) {
                option.accept(value);
            }
        }
    }

    /**
     * The shared parse cache of annotated methods.
     *
     * @param environment resolves placeholders in durations
     * @param beanFactory resolves {@code @bean} references in key expressions
     * @return the cache
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockedMethods dlockLockedMethods(Environment environment, BeanFactory beanFactory) {
        return new LockedMethods(environment, beanFactory);
    }

    /**
     * The client {@link WithLock} locks with: the application's {@code LockClient} bean, looked up
     * when first needed, so creating proxies never connects.
     *
     * @param client the {@code LockClient} beans
     * @param beans  to name them when there are several
     * @return the lookup
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static WithLockClient dlockWithLockClient(ObjectProvider<LockClient> client, ListableBeanFactory beans) {
        return new WithLockClient(client, beans);
    }

    /**
     * The advisor of {@link WithLock}, ordered by {@code dlock.advice-order}.
     *
     * @param client      the client lookup
     * @param methods     the parse cache
     * @param environment for {@code dlock.advice-order}
     * @return the advisor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static WithLockAdvisor withLockAdvisor(WithLockClient client, LockedMethods methods, Environment environment) {
        int order = Binder.get(environment).bind("dlock.advice-order", Integer.class)
                .orElse(WithLockAdvisor.DEFAULT_ORDER);
        return new WithLockAdvisor(new WithLockInterceptor(client, methods), order);
    }

    /**
     * Checks every annotated method when its bean is created, and that there is a client to lock
     * with once the singletons are.
     *
     * @param methods the parse cache
     * @param client  the client lookup
     * @return the check
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static WithLockMethodCheck withLockMethodCheck(LockedMethods methods, WithLockClient client) {
        return new WithLockMethodCheck(methods, client);
    }

    /** The application's Spring Data Redis connection details, when Spring Boot's Redis support is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
    static class DataRedis {
        @Bean
        @ConditionalOnSingleCandidate(DataRedisConnectionDetails.class)
        DataRedisAddress dlockDataRedisAddress(DataRedisConnectionDetails details) {
            return new DataRedisAddress(details);
        }
    }

    /** Registers Spring's infrastructure auto-proxy creator unless one is there already. */
    static final class AutoProxying implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
