package dev.dlock.spring;

import java.util.List;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * The address of the application's {@link DataRedisConnectionDetails} bean: what Spring Data
 * Redis connects to, from {@code spring.data.redis.*} or from a service connection (Testcontainers,
 * Docker Compose). Only loaded when Spring Boot's Redis support is on the class path.
 */
final class DataRedisAddress implements RedisAddressSource {
    private final DataRedisConnectionDetails details;

    DataRedisAddress(DataRedisConnectionDetails details) {
        this.details = details;
    }

    @Override
    public RedisAddress get() {
        String source = "the application's " + DataRedisConnectionDetails.class.getSimpleName();
        boolean ssl = details.getSslBundle() != null;
        String username = details.getUsername();
        String password = details.getPassword();
        if (details.getCluster() != null) {
            List<String> nodes = details.getCluster().getNodes().stream()
                    .map(node -> RedisAddress.uri(ssl, username, password, node.host(), node.port(), 0)).toList();
            return new RedisAddress(source, null, nodes, List.of());
        }
        if (details.getMasterReplica() != null) {
            throw new StartupRefusal("Redis master/replica connections (" + source + ") are not supported by"
                    + " dlock", "set dlock.redis.url to the master, or to its sentinels");
        }
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            List<String> nodes = sentinel.getNodes().stream().map(node -> node.host() + ":" + node.port()).toList();
            return new RedisAddress(source, RedisAddress.sentinelUri(ssl, password, nodes, sentinel.getDatabase(),
                    sentinel.getMaster()), List.of(), List.of());
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return new RedisAddress(source, RedisAddress.uri(ssl, username, password, standalone.getHost(),
                standalone.getPort(), standalone.getDatabase()), List.of(), List.of());
    }
}
