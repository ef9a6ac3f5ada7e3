package dev.dlock.spring;

import dev.dlock.LockClientBuilder;
import dev.dlock.RedisStore;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Where the client connects: dlock's own address properties when one is set, else the
 * application's Spring Data Redis connection details when there is such a bean, else the Redis
 * that {@code spring.data.redis.*} describes (read here, so spring-boot-data-redis need not be on
 * the class path), with Spring Boot's defaults (localhost:6379).
 */
record RedisAddress(String source, String redisUri, List<String> clusterNodes, List<String> redlockNodes) {
    static final String URL = "dlock.redis.url";
    static final String CLUSTER_NODES = "dlock.redis.cluster.nodes";
    static final String REDLOCK_NODES = "dlock.redis.redlock.nodes";
    private static final String ADDRESSES = URL + ", " + CLUSTER_NODES + " and " + REDLOCK_NODES;

    static RedisAddress of(DlockProperties dlock, Environment environment) {
        return of(dlock, environment, null);
    }

    /**
     * @param dataRedis the address of the application's Spring Data Redis connection details, or
     *                  null when there are none
     */
    static RedisAddress of(DlockProperties dlock, Environment environment, Supplier<RedisAddress> dataRedis) {
        DlockProperties.Redis redis = dlock.getRedis();
        List<String> clusterNodes = redis.getCluster().getNodes();
        List<String> redlockNodes = redis.getRedlock().getNodes();
        int set = (redis.getUrl() != null ? 1 : 0) + (redlockNodes.isEmpty() ? 0 : 1) + (clusterNodes.isEmpty() ? 0 : 1);
        if (set > 1) {
            throw new StartupRefusal(set + " of " + ADDRESSES + " are set (url " + (redis.getUrl() != null ? "set" : "unset")
                    + ", cluster.nodes " + clusterNodes.size() + ", redlock.nodes " + redlockNodes.size() + ")",
                    "set one of " + ADDRESSES + ", not " + set);
        }
        if (redis.getUrl() != null) {
            return new RedisAddress(URL, redis.getUrl(), List.of(), List.of());
        }
        if (!redlockNodes.isEmpty()) {
            return new RedisAddress(REDLOCK_NODES, null, List.of(), List.copyOf(redlockNodes));
        }
        if (!clusterNodes.isEmpty()) {
            return new RedisAddress(CLUSTER_NODES, null, List.copyOf(clusterNodes), List.of());
        }
        return dataRedis != null ? dataRedis.get() : fromSpringDataRedis(Binder.get(environment));
    }

    private static RedisAddress fromSpringDataRedis(Binder binder) {
        String url = binder.bind("spring.data.redis.url", String.class).orElse(null);
        if (url != null && !url.isBlank()) {
            return new RedisAddress("spring.data.redis.url", url, List.of(), List.of());
        }
        boolean ssl = binder.bind("spring.data.redis.ssl.enabled", Boolean.class)
                .orElseGet(() -> binder.bind("spring.data.redis.ssl.bundle", String.class).isBound());
        String username = binder.bind("spring.data.redis.username", String.class).orElse(null);
        String password = binder.bind("spring.data.redis.password", String.class).orElse(null);
        int database = binder.bind("spring.data.redis.database", Integer.class).orElse(0);
        List<String> clusterNodes = binder.bind("spring.data.redis.cluster.nodes", String[].class)
                .map(List::of).orElse(List.of());
        if (!clusterNodes.isEmpty()) {
            String scheme = ssl ? "rediss://" : "redis://";
            List<String> uris = new ArrayList<>();
            for (String node : clusterNodes) {
                uris.add(scheme + credentials(username, password) + node.trim());
            }
            return new RedisAddress("spring.data.redis.cluster.nodes", null, uris, List.of());
        }
        if (!binder.bind("spring.data.redis.masterreplica.nodes", String[].class).map(List::of).orElse(List.of()).isEmpty()) {
            throw new StartupRefusal("spring.data.redis.masterreplica.nodes is not supported by dlock", "set"
                    + " dlock.redis.url to the master, or to its sentinels");
        }
        String master = binder.bind("spring.data.redis.sentinel.master", String.class).orElse(null);
        if (master != null && !master.isBlank()) {
            List<String> sentinels = binder.bind("spring.data.redis.sentinel.nodes", String[].class)
                    .map(List::of).orElse(List.of());
            if (sentinels.isEmpty()) {
                throw new StartupRefusal("spring.data.redis.sentinel.master is '" + master
                        + "' but spring.data.redis.sentinel.nodes is empty", "set the sentinels, or dlock.redis.url");
            }
            String uri = sentinelUri(ssl, password, sentinels.stream().map(String::trim).toList(), database, master);
            return new RedisAddress("spring.data.redis.sentinel.*", uri, List.of(), List.of());
        }
        String host = binder.bind("spring.data.redis.host", String.class).orElse("localhost");
        int port = binder.bind("spring.data.redis.port", Integer.class).orElse(6379);
        return new RedisAddress("spring.data.redis.host/port", uri(ssl, username, password, host, port, database),
                List.of(), List.of());
    }

    static String uri(boolean ssl, String username, String password, String host, int port, int database) {
        String hostPart = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return (ssl ? "rediss://" : "redis://") + credentials(username, password) + hostPart + ":" + port
                + (database != 0 ? "/" + database : "");
    }

    static String sentinelUri(boolean ssl, String password, List<String> sentinels, int database, String master) {
        return (ssl ? "rediss-sentinel://" : "redis-sentinel://") + credentials(null, password)
                + String.join(",", sentinels) + "/" + database + "?sentinelMasterId=" + encode(master);
    }

    private static String credentials(String username, String password) {
        if (password == null || password.isEmpty()) {
            return username == null || username.isEmpty() ? "" : encode(username) + "@";
        }
        return (username == null ? "" : encode(username)) + ":" + encode(password) + "@";
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The store at this address, without the Redis options of other properties. */
    RedisStore store() {
        if (redisUri != null) {
            return RedisStore.standalone(redisUri);
        } else if (!clusterNodes.isEmpty()) {
            return RedisStore.cluster(clusterNodes.toArray(String[]::new));
        } else {
            return RedisStore.redlock(redlockNodes.toArray(String[]::new));
        }
    }

    /** The address for messages: without credentials. */
    String describe() {
        List<String> all = redisUri != null ? List.of(redisUri) : !clusterNodes.isEmpty() ? clusterNodes : redlockNodes;
        return all.stream().map(RedisAddress::withoutCredentials).collect(Collectors.joining(","))
                + " (from " + source + ")";
    }

    private static String withoutCredentials(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.indexOf('@');
        return scheme >= 0 && at > scheme ? uri.substring(0, scheme + 3) + uri.substring(at + 1) : uri;
    }
}
