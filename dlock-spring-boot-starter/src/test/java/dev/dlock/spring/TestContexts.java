package dev.dlock.spring;

import dev.dlock.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Spring Boot applications started in this JVM against a test's redis-server. */
final class TestContexts {

    private TestContexts() {
    }

    static ConfigurableApplicationContext start(RedisServer redis, Class<?> configuration, String... properties) {
        List<String> all = new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(),
                "spring.data.redis.port=" + redis.port(), "spring.main.banner-mode=off", "logging.level.root=warn"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new)).run();
    }
}
