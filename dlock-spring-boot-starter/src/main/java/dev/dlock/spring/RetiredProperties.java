package dev.dlock.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The Redis properties that moved under {@code dlock.redis.*}. One left in a configuration would be
 * read by nobody, and the client would lock in the Redis of {@code spring.data.redis.*} (or
 * localhost) instead, never excluding the clients that lock where it points: the startup fails
 * naming the new property.
 */
final class RetiredProperties {
    private static final Map<String, String> MOVED = new LinkedHashMap<>();

    static {
        MOVED.put("dlock.redis-uri", RedisAddress.URL);
        MOVED.put("dlock.cluster-nodes", RedisAddress.CLUSTER_NODES);
        MOVED.put("dlock.redlock-nodes", RedisAddress.REDLOCK_NODES);
        MOVED.put("dlock.redlock-node-timeout", "dlock.redis.redlock.node-timeout");
        MOVED.put("dlock.replica-acks", "dlock.redis.replica-acks");
    }

    private RetiredProperties() {
    }

    static void refuse(Environment environment) {
        Binder binder = Binder.get(environment);
        List<String> set = MOVED.keySet().stream()
                .filter(name -> binder.bind(name, String[].class).isBound()
                        || binder.bind(name, Bindable.mapOf(String.class, String.class)).isBound())
                .toList();
        if (!set.isEmpty()) {
            throw new StartupRefusal(String.join(" and ", set) + (set.size() == 1 ? " is" : " are")
                    + " no longer read: the Redis properties moved under dlock.redis.*",
                    String.join(", ", set.stream().map(name -> "rename " + name + " to " + MOVED.get(name)).toList()));
        }
    }
}
