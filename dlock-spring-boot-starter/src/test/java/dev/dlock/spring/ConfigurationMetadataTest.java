package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** IDEs complete the dlock.* properties from the generated metadata, with the Javadoc as descriptions. */
class ConfigurationMetadataTest {

    @Test
    void everyBuilderOptionIsDescribed() throws Exception {
        Map<String, JsonNode> properties = new HashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            JsonMapper.builder().build().readTree(in).get("properties")
                    .forEach(property -> properties.put(property.get("name").asString(), property));
        }
        assertThat(properties).containsKeys("dlock.enabled", "dlock.redis-uri", "dlock.redlock-nodes",
                "dlock.cluster-nodes", "dlock.redlock-node-timeout", "dlock.key-prefix", "dlock.default-lease",
                "dlock.command-timeout", "dlock.waiter-timeout", "dlock.outage-tolerance", "dlock.client-name",
                "dlock.advice-order", "dlock.replica-acks.replicas", "dlock.replica-acks.timeout",
                "dlock.metrics.enabled", "dlock.metrics.percentile-histograms");
        assertThat(properties.values()).allSatisfy(property -> assertThat(property.path("description").asString()).isNotBlank());
        assertThat(properties.get("dlock.redis-uri").get("description").asString()).startsWith("The Redis URL");
        assertThat(properties.get("dlock.default-lease").get("defaultValue").asString()).isEqualTo("30s");
        assertThat(properties.get("dlock.metrics.enabled").get("defaultValue").asBoolean()).isTrue();
        assertThat(properties.get("dlock.metrics.percentile-histograms").get("defaultValue").asBoolean()).isFalse();
    }
}
