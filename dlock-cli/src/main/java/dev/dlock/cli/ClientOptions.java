package dev.dlock.cli;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where the locks of {@code exec}, {@code status}, {@code list}, {@code top} and {@code release} live, from the
 * global options: one Redis ({@code --redis}, else {@code $REDIS_URL}, else the default address;
 * a Sentinel URL is one Redis too), a Redlock ({@code --redlock}), a Redis Cluster
 * ({@code --cluster}) or PostgreSQL ({@code --postgres}, else {@code $DLOCK_POSTGRES_URL}). The one place that turns them into a {@link LockClientBuilder}.
 */
public final class ClientOptions {

    /** A comma that starts the next URL: a sentinel URL's own commas (between sentinels) are not followed by a scheme. */
    private static final Pattern URL_SEPARATOR = Pattern.compile(",(?=\\s*[A-Za-z][A-Za-z0-9+.-]*://)");

    private enum Topology { REDIS, REDLOCK, CLUSTER, POSTGRES }

    private final Topology topology;
    private final List<String> urls;

    private ClientOptions(Topology topology, List<String> urls) {
        this.topology = topology;
        this.urls = List.copyOf(urls);
    }

    /**
     * The topology the options name, each URL checked as the library checks it.
     *
     * @param redis        {@code --redis}, or null
     * @param redisFromEnv {@code $REDIS_URL}, or null; a default for {@code --redis}, so ignored
     *                     when {@code --redlock}, {@code --cluster} or {@code --postgres} is given
     * @param redlock      every {@code --redlock} value (each one URL or several, comma-separated)
     * @param cluster      every {@code --cluster} value (each one URL or several, comma-separated)
     * @throws UsageException the options exclude each other, or a URL is not acceptable
     */
    static ClientOptions of(String redis, String redisFromEnv, List<String> redlock, List<String> cluster) {
        return of(redis, redisFromEnv, redlock, cluster, null, null);
    }

    /**
     * As {@link #of(String, String, List, List)}, with PostgreSQL: {@code --postgres}, else
     * {@code $DLOCK_POSTGRES_URL} when no Redis option is given (and {@code $REDIS_URL} is not set too).
     *
     * @param postgres        {@code --postgres}, or null
     * @param postgresFromEnv {@code $DLOCK_POSTGRES_URL}, or null
     */
    static ClientOptions of(String redis, String redisFromEnv, List<String> redlock, List<String> cluster,
                            String postgres, String postgresFromEnv) {
        List<String> given = new ArrayList<>();
        if (redis != null) {
            given.add("--redis");
        }
        if (!redlock.isEmpty()) {
            given.add("--redlock");
        }
        if (!cluster.isEmpty()) {
            given.add("--cluster");
        }
        if (postgres != null) {
            given.add("--postgres");
        }
        if (given.size() > 1) {
            throw new UsageException(String.join(" and ", given) + " exclude each other: give one of --redis URL "
                    + "(one Redis, Sentinel included), --redlock URL,URL,URL, --cluster URL[,URL...] or --postgres URL");
        }
        if (postgres != null) {
            return new ClientOptions(Topology.POSTGRES, List.of(checkedPostgresUrl(postgres, "--postgres")));
        }
        if (!redlock.isEmpty()) {
            return redlock(split(redlock, "--redlock"));
        }
        if (!cluster.isEmpty()) {
            return cluster(split(cluster, "--cluster"));
        }
        if (redis != null) {
            return new ClientOptions(Topology.REDIS, List.of(checkedUrl(redis, "--redis")));
        }
        boolean redisEnv = redisFromEnv != null && !redisFromEnv.isBlank();
        if (postgresFromEnv != null && !postgresFromEnv.isBlank()) {
            if (redisEnv) {
                throw new UsageException(DlockCommand.REDIS_URL_ENV + " and " + DlockCommand.POSTGRES_URL_ENV
                        + " are both set: say which with --redis URL or --postgres URL");
            }
            return new ClientOptions(Topology.POSTGRES,
                    List.of(checkedPostgresUrl(postgresFromEnv.strip(), DlockCommand.POSTGRES_URL_ENV)));
        }
        if (redisEnv) {
            return new ClientOptions(Topology.REDIS, List.of(checkedUrl(redisFromEnv.strip(), DlockCommand.REDIS_URL_ENV)));
        }
        return new ClientOptions(Topology.REDIS, List.of(LockClient.DEFAULT_REDIS_URI));
    }

    /** True when the locks live in PostgreSQL. */
    boolean isPostgres() {
        return topology == Topology.POSTGRES;
    }

    /** The PostgreSQL URL; only when {@link #isPostgres()}. */
    String postgresUrl() {
        if (topology != Topology.POSTGRES) {
            throw new IllegalStateException("not PostgreSQL: " + topology);
        }
        return urls.get(0);
    }

    /** True for one Redis (standalone or Sentinel), false for a Redlock or a Cluster. */
    boolean isSingleRedis() {
        return topology == Topology.REDIS;
    }

    boolean isCluster() {
        return topology == Topology.CLUSTER;
    }

    /** The URLs as given (one for one Redis), for {@code dlock doctor}. */
    List<String> urls() {
        return urls;
    }

    /** The one Redis's URL. */
    String redisUrl() {
        if (topology != Topology.REDIS) {
            throw new IllegalStateException("not one Redis: " + topology);
        }
        return urls.get(0);
    }

    /**
     * A builder connected to the topology's servers, with nothing else set.
     *
     * @throws UsageException the library refuses the URLs
     */
    LockClientBuilder builder() {
        LockClientBuilder builder = LockClient.builder();
        try {
            switch (topology) {
                case REDIS -> builder.redisUri(urls.get(0));
                case REDLOCK -> builder.redlockNodes(urls.toArray(String[]::new));
                case CLUSTER -> builder.clusterNodes(urls.toArray(String[]::new));
                case POSTGRES -> builder.postgres(urls.get(0));
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(option() + ": " + e.getMessage(), e);
        }
        return builder;
    }

    private String option() {
        return switch (topology) {
            case REDIS -> "--redis";
            case REDLOCK -> "--redlock";
            case CLUSTER -> "--cluster";
            case POSTGRES -> "--postgres";
        };
    }

    private static ClientOptions redlock(List<String> urls) {
        if (urls.size() < 3) {
            throw new UsageException("--redlock needs at least 3 independent masters (an odd number is best), got "
                    + urls.size() + ": " + String.join(",", urls));
        }
        return new ClientOptions(Topology.REDLOCK, urls);
    }

    private static ClientOptions cluster(List<String> urls) {
        Set<String> seen = new HashSet<>();
        for (String url : urls) {
            String scheme = url.substring(0, url.indexOf("://")).toLowerCase(Locale.ROOT);
            if (!scheme.equals("redis") && !scheme.equals("rediss")) {
                throw new UsageException("--cluster: '" + url + "' is not a cluster node's URL: "
                        + "give redis://host:port or rediss://host:port of one or more nodes");
            }
            if (!seen.add(url.toLowerCase(Locale.ROOT))) {
                throw new UsageException("--cluster: '" + url + "' is given twice");
            }
        }
        return new ClientOptions(Topology.CLUSTER, urls);
    }

    /** The URL if the library takes it as a PostgreSQL URL; else a usage error naming where it came from. */
    private static String checkedPostgresUrl(String url, String from) {
        try {
            LockClient.builder().postgres(url);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UsageException(from + ": " + e.getMessage(), e);
        }
        return url;
    }

    /** Every value split into URLs, each checked; repeated options and comma-separated lists mix freely. */
    private static List<String> split(List<String> values, String option) {
        List<String> urls = new ArrayList<>();
        for (String value : values) {
            for (String url : URL_SEPARATOR.split(value, -1)) {
                String stripped = url.strip();
                if (stripped.isEmpty()) {
                    throw new UsageException(option + ": empty URL in '" + value + "'");
                }
                urls.add(checkedUrl(stripped, option));
            }
        }
        return urls;
    }

    /** The URL if the library accepts it; else a usage error with the library's reason, after where the URL came from. */
    private static String checkedUrl(String url, String from) {
        try {
            LockClient.builder().redisUri(url);
        } catch (IllegalArgumentException e) {
            throw new UsageException(from + ": " + e.getMessage(), e);
        }
        return url;
    }
}
