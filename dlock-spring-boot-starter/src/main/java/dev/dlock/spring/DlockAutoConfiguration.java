package dev.dlock.spring;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.PostgresStore;
import dev.dlock.RedisStore;
import dev.dlock.Store;
import dev.dlock.ZooKeeperStore;
import java.util.ArrayList;
import java.util.List;
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
         * @param customizers  applied in order before the properties, whose options they override
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
            RetiredProperties.refuse(environment);
            LockClientBuilder builder = LockClient.builder();
            DlockProperties.Store store = properties.getStore();
            if (store != DlockProperties.Store.REDIS) {
                refuseRedisOptions(properties);
            }
            RedisAddress address = store == DlockProperties.Store.REDIS
                    ? RedisAddress.of(properties, environment, dataRedis.getIfUnique()) : null;
            try {
                // the customizers first, so that an option one of them set wins over its property (below,
                // the builder refuses to set it again, and the property is passed over); a customizer that
                // calls store(...) gives the whole store, and the store's properties are passed over
                customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
                switch (store) {
                    case REDIS -> useRedis(builder, properties.getRedis(), address);
                    case POSTGRES -> usePostgres(builder, dataSources.getIfUnique(), properties.getPostgres());
                    case ZOOKEEPER -> useZooKeeper(builder, properties.getZookeeper());
                    case IN_MEMORY -> unlessCustomized(() -> builder.store(Store.inMemory()));
                }
                set(properties.getKeyPrefix(), builder::keyPrefix);
                set(properties.getDefaultLease(), builder::defaultLease);
                set(properties.getCommandTimeout(), builder::commandTimeout);
                set(properties.getWaiterTimeout(), builder::waiterTimeout);
                set(properties.getOutageTolerance(), builder::outageTolerance);
                set(clientName(properties, environment), builder::clientName);
                set(properties.getSlowHoldThreshold(), builder::slowHoldThreshold);
                set(properties.getSlowWaitThreshold(), builder::slowWaitThreshold);
                set(properties.getCaptureAcquireSite(), builder::captureAcquireSite);
                return builder.build();
            } catch (LockBackendException e) {
                if (store == DlockProperties.Store.ZOOKEEPER) {
                    throw new StartupRefusal("dlock could not use ZooKeeper at dlock.zookeeper.connect-string: "
                            + e.getMessage(), "check dlock.zookeeper.connect-string and that the ensemble answers there", e);
                }
                if (address == null) {
                    throw new StartupRefusal("dlock could not use PostgreSQL through the application's DataSource: "
                            + e.getMessage(), e.getMessage().contains(".sql") ? "run that SQL file in your migrations,"
                            + " or let dlock create its schema (dlock.postgres.create-schema=true, the default)"
                            : "check spring.datasource.* and that PostgreSQL answers there", e);
                }
                throw new RedisUnreachableException(address.describe(), e);
            } catch (StartupRefusal e) {
                throw e;
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new StartupRefusal(PropertyNames.inMessage(e.getMessage(), properties, address),
                        "correct the value named (docs/spring-boot.md, Properties, gives each property's limits)", e);
            }
        }

        /**
         * A Redis address beside another {@code dlock.store} is a configuration half moved (during a
         * migration, one half of a fleet would lock in Redis and the other in PostgreSQL, never
         * excluding each other): the start fails naming both.
         */
        private static void refuseRedisOptions(DlockProperties properties) {
            DlockProperties.Redis redisProperties = properties.getRedis();
            List<String> redis = new ArrayList<>();
            if (redisProperties.getUrl() != null) {
                redis.add(RedisAddress.URL);
            }
            if (!redisProperties.getCluster().getNodes().isEmpty()) {
                redis.add(RedisAddress.CLUSTER_NODES);
            }
            if (!redisProperties.getRedlock().getNodes().isEmpty()) {
                redis.add(RedisAddress.REDLOCK_NODES);
            }
            if (!redis.isEmpty()) {
                String store = switch (properties.getStore()) {
                    case POSTGRES -> "dlock.store=postgres keeps the locks in the application's DataSource";
                    case ZOOKEEPER -> "dlock.store=zookeeper keeps the locks in ZooKeeper";
                    default -> "dlock.store=in-memory keeps the locks in this JVM";
                };
                throw new StartupRefusal(store + ", and " + String.join(" and ", redis) + (redis.size() == 1 ? " is" : " are")
                        + " set too: clients that read one or the other would never exclude each other", "remove "
                        + String.join(" and ", redis) + ", or set dlock.store=redis");
            }
        }

        /** {@code dlock.store=redis}: the address and the Redis-only options. */
        private static void useRedis(LockClientBuilder builder, DlockProperties.Redis redis, RedisAddress address) {
            RedisStore store = address.store();
            if (redis.getRedlock().getNodeTimeout() != null) {
                store = store.nodeTimeout(redis.getRedlock().getNodeTimeout());
            }
            DlockProperties.ReplicaAcks acks = redis.getReplicaAcks();
            if (acks.getReplicas() > 0) {
                store = store.replicaAcks(acks.getReplicas(), acks.getTimeout());
            }
            RedisStore chosen = store;
            unlessCustomized(() -> builder.store(chosen));
        }

        /** {@code dlock.store=postgres}: the locks in the database of the application's DataSource. */
        private static void usePostgres(LockClientBuilder builder, DataSource dataSource, DlockProperties.Postgres postgres) {
            if (dataSource == null) {
                throw new StartupRefusal("dlock.store=postgres keeps the locks in the application's DataSource, "
                        + "and there is no single DataSource bean", "configure spring.datasource.* (or mark one"
                        + " DataSource @Primary), or set dlock.store=redis");
            }
            PostgresStore store = PostgresStore.dataSource(dataSource);
            if (postgres.getSchema() != null) {
                store = store.schema(postgres.getSchema());
            }
            if (postgres.getCreateSchema() != null) {
                store = store.createSchema(postgres.getCreateSchema());
            }
            if (postgres.getPolling() != null) {
                store = store.polling(postgres.getPolling());
            }
            PostgresStore chosen = store;
            unlessCustomized(() -> builder.store(chosen));
        }

        /** {@code dlock.store=zookeeper}: the locks in the ensemble of {@code dlock.zookeeper.connect-string}. */
        private static void useZooKeeper(LockClientBuilder builder, DlockProperties.ZooKeeper zookeeper) {
            if (zookeeper.getConnectString() == null || zookeeper.getConnectString().isBlank()) {
                throw new IllegalStateException("dlock.store=zookeeper needs dlock.zookeeper.connect-string "
                        + "(host:port[,host:port...][/chroot])");
            }
            ZooKeeperStore store;
            try {
                store = ZooKeeperStore.connect(zookeeper.getConnectString().strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("dlock.zookeeper.connect-string: " + e.getMessage(), e);
            }
            if (zookeeper.getSessionTimeout() != null) {
                try {
                    store = store.sessionTimeout(zookeeper.getSessionTimeout());
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException("dlock.zookeeper.session-timeout: " + e.getMessage(), e);
                }
            }
            ZooKeeperStore chosen = store;
            unlessCustomized(() -> builder.store(chosen));
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
                unlessCustomized(() -> option.accept(value));
            }
        }

        /**
         * Sets an option from its property unless a customizer set it: the builder's setters throw
         * {@link IllegalStateException} only for an option set already, and the customizer's value stays.
         */
        private static void unlessCustomized(Runnable setting) {
            try {
                setting.run();
            } catch (IllegalStateException setByCustomizer) {
                // the customizer's setting wins
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
     * @param methods     the parse cache
     * @param client      the client lookup
     * @param environment for {@code dlock.self-invocation}
     * @return the check
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static WithLockMethodCheck withLockMethodCheck(LockedMethods methods, WithLockClient client, Environment environment) {
        return new WithLockMethodCheck(methods, client, Binder.get(environment)
                .bind("dlock.self-invocation", DlockProperties.SelfInvocation.class)
                .orElse(DlockProperties.SelfInvocation.WARN));
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
