package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClientBuilder;
import dev.dlock.PostgresStore;
import dev.dlock.RedisStore;
import dev.dlock.Store;
import dev.dlock.ZooKeeperStore;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** IDEs complete the dlock.* properties from the generated metadata, with the Javadoc as descriptions. */
class ConfigurationMetadataTest {

    /** Each builder option, and each store value's factory and option, and the property that sets it. */
    private static final Map<String, String> PROPERTIES = Map.ofEntries(
            Map.entry("store", "dlock.store"),
            Map.entry("RedisStore.standalone", "dlock.redis.url"),
            Map.entry("RedisStore.localhost", "dlock.redis.url"),
            Map.entry("RedisStore.cluster", "dlock.redis.cluster.nodes"),
            Map.entry("RedisStore.redlock", "dlock.redis.redlock.nodes"),
            Map.entry("RedisStore.nodeTimeout", "dlock.redis.redlock.node-timeout"),
            Map.entry("RedisStore.replicaAcks", "dlock.redis.replica-acks.replicas"),
            Map.entry("Store.inMemory", "dlock.store"),
            Map.entry("PostgresStore.dataSource", "dlock.store"),
            Map.entry("PostgresStore.schema", "dlock.postgres.schema"),
            Map.entry("PostgresStore.createSchema", "dlock.postgres.create-schema"),
            Map.entry("PostgresStore.polling", "dlock.postgres.polling"),
            Map.entry("ZooKeeperStore.connect", "dlock.zookeeper.connect-string"),
            Map.entry("ZooKeeperStore.sessionTimeout", "dlock.zookeeper.session-timeout"),
            Map.entry("keyPrefix", "dlock.key-prefix"),
            Map.entry("defaultLease", "dlock.default-lease"),
            Map.entry("commandTimeout", "dlock.command-timeout"),
            Map.entry("waiterTimeout", "dlock.waiter-timeout"),
            Map.entry("outageTolerance", "dlock.outage-tolerance"),
            Map.entry("clientName", "dlock.client-name"),
            Map.entry("slowHoldThreshold", "dlock.slow-hold-threshold"),
            Map.entry("slowWaitThreshold", "dlock.slow-wait-threshold"),
            Map.entry("captureAcquireSite", "dlock.capture-acquire-site"));

    /** Options whose values are objects of the application: a LockClientBuilderCustomizer sets them (docs/spring-boot.md). */
    private static final Set<String> CUSTOMIZER_ONLY = Set.of("listener", "observer", "callbackExecutor",
            "RedisStore.clientResources", "PostgresStore.url", "ZooKeeperStore.auth");

    @Test
    void everyBuilderOptionIsAPropertyOrDocumentedAsACustomizersOwn() {
        Set<String> options = new TreeSet<>();
        Arrays.stream(LockClientBuilder.class.getMethods())
                .filter(method -> method.getReturnType() == LockClientBuilder.class && !Modifier.isStatic(method.getModifiers()))
                .map(Method::getName)
                .forEach(options::add);
        for (Class<?> store : List.of(Store.class, RedisStore.class, PostgresStore.class, ZooKeeperStore.class)) {
            Arrays.stream(store.getDeclaredMethods())
                    .filter(method -> Modifier.isPublic(method.getModifiers()) && Store.class.isAssignableFrom(method.getReturnType()))
                    .forEach(method -> options.add(store.getSimpleName() + "." + method.getName()));
        }
        Set<String> covered = new TreeSet<>(PROPERTIES.keySet());
        covered.addAll(CUSTOMIZER_ONLY);
        assertThat(options).isEqualTo(covered);
    }

    @Test
    void everyPropertyIsDescribed() throws Exception {
        Map<String, JsonNode> properties = new HashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            JsonMapper.builder().build().readTree(in).get("properties")
                    .forEach(property -> properties.put(property.get("name").asString(), property));
        }
        assertThat(properties).containsKeys(PROPERTIES.values().toArray(String[]::new));
        assertThat(properties).containsKeys("dlock.enabled", "dlock.redis.replica-acks.timeout", "dlock.advice-order",
                "dlock.skip-on-outage", "dlock.self-invocation", "dlock.metrics.enabled", "dlock.metrics.percentile-histograms");
        assertThat(properties.values()).allSatisfy(property -> assertThat(property.path("description").asString()).isNotBlank());
        assertThat(properties.get("dlock.redis.url").get("description").asString()).startsWith("The Redis URL");
        assertThat(properties.get("dlock.default-lease").get("defaultValue").asString()).isEqualTo("30s");
        assertThat(properties.get("dlock.postgres.schema").get("defaultValue").asString()).isEqualTo("public");
        assertThat(properties.get("dlock.metrics.enabled").get("defaultValue").asBoolean()).isTrue();
        assertThat(properties.get("dlock.metrics.percentile-histograms").get("defaultValue").asBoolean()).isFalse();
        // the names before dlock.redis.*: an IDE marks them as errors, naming the new one
        assertThat(properties.get("dlock.redis-uri").path("deprecation").path("replacement").asString())
                .isEqualTo("dlock.redis.url");
        assertThat(properties.get("dlock.redlock-node-timeout").path("deprecation").path("level").asString())
                .isEqualTo("error");
    }
}
