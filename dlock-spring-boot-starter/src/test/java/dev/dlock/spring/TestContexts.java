package dev.dlock.spring;

import dev.dlock.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/** Spring Boot applications started in this JVM against a test's redis-server. */
final class TestContexts {

    private TestContexts() {
    }

    static ConfigurableApplicationContext start(RedisServer redis, Class<?> configuration, String... properties) {
        return start(redis, new Class<?>[] {configuration}, properties);
    }

    /** An application of these sources (configurations or bean classes) with properties such as "a=b". */
    static ConfigurableApplicationContext start(RedisServer redis, Class<?>[] sources, String... properties) {
        List<String> all = new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(),
                "spring.data.redis.port=" + redis.port(), "spring.main.banner-mode=off", "logging.level.root=warn"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new)).run();
    }

    /** A runner of applications with the starter's auto-configuration on this server. */
    static ApplicationContextRunner runner(RedisServer redis) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
    }

    /** An application with the starter's auto-configuration and one bean of each class. */
    static ConfigurableApplicationContext withBeans(RedisServer redis, List<Class<?>> beans, String... properties) {
        List<Class<?>> sources = new ArrayList<>(List.of(Dlock.class));
        sources.addAll(beans);
        return start(redis, sources.toArray(Class<?>[]::new), properties);
    }

    /**
     * A redis-server and two applications on it with one bean of each class, for tests of what
     * two hosts see.
     *
     * @param redis  the server
     * @param first  the application of client "first"
     * @param second the application of client "second"
     */
    record TwoApplications(RedisServer redis, ConfigurableApplicationContext first, ConfigurableApplicationContext second)
            implements AutoCloseable {

        static TwoApplications start(Class<?>... beans) {
            RedisServer redis = RedisServer.start();
            return new TwoApplications(redis, withBeans(redis, List.of(beans), "dlock.client-name=first"),
                    withBeans(redis, List.of(beans), "dlock.client-name=second"));
        }

        @Override
        public void close() {
            first.close();
            second.close();
            redis.close();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DlockAutoConfiguration.class)
    static class Dlock {
    }
}
