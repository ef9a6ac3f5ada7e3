package dev.dlock.cli.store;

import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.Store;
import dev.dlock.cli.common.UsageException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * Redis: one Redis ({@code --redis}, else {@code $REDIS_URL}, else the default address; a Sentinel
 * URL is one Redis too), a Redlock ({@code --redlock}) or a Redis Cluster ({@code --cluster}). The
 * first store of {@link Stores}: the one used when nothing names a store.
 */
public final class RedisOptions implements StoreOptions {

    /** The default of {@code --redis}. */
    public static final String URL_ENV = "REDIS_URL";

    /** A comma that starts the next URL: a sentinel URL's own commas (between sentinels) are not followed by a scheme. */
    private static final Pattern URL_SEPARATOR = Pattern.compile(",(?=\\s*[A-Za-z][A-Za-z0-9+.-]*://)");

    // Lines of at most 52 characters: the narrowest description column (demo's) shows each as one line
    // (HelpLayoutTest); longer ones picocli would wrap again, into a staircase.
    @Option(names = "--redis", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = {"Redis URL: redis://[user:password@]host:port[/db],",
                    "rediss://... for TLS, or a master Sentinels name:",
                    "redis-sentinel://h:p[,h:p...]?sentinelMasterId=NAME",
                    "(or ...#NAME, as Lettuce writes it).",
                    "Default: $REDIS_URL, else redis://127.0.0.1:6379."})
    private String redis;

    @Option(names = "--redlock", paramLabel = "URL[,URL...]", scope = ScopeType.INHERIT,
            description = {"Redlock over independent masters: at least 3 URLs,",
                    "comma-separated or the option repeated. Excludes",
                    "--redis and --cluster."})
    private List<String> redlock = new ArrayList<>();

    @Option(names = "--cluster", paramLabel = "URL[,URL...]", scope = ScopeType.INHERIT,
            description = {"Redis Cluster: the URLs of one or more of its nodes",
                    "(redis:// or rediss://), comma-separated or the",
                    "option repeated. Excludes --redis and --redlock."})
    private List<String> cluster = new ArrayList<>();

    @Override
    public String storeName() {
        return "Redis";
    }

    @Override
    public List<String> optionNames() {
        return List.of("--redis", "--redlock", "--cluster");
    }

    @Override
    public List<String> given() {
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
        return given;
    }

    @Override
    public List<String> forms() {
        return List.of("--redis URL (one Redis, Sentinel included)", "--redlock URL,URL,URL", "--cluster URL[,URL...]");
    }

    @Override
    public String variable() {
        return URL_ENV;
    }

    @Override
    public String variableOption() {
        return "--redis URL";
    }

    @Override
    public ClientOptions fromOptions() {
        if (!redlock.isEmpty()) {
            return redlock(split(redlock, "--redlock"));
        }
        if (!cluster.isEmpty()) {
            return cluster(split(cluster, "--cluster"));
        }
        return new ClientOptions(this, "--redis", List.of(checkedUrl(redis, "--redis")), "--redis");
    }

    @Override
    public ClientOptions fromVariable(String value) {
        return new ClientOptions(this, "--redis", List.of(checkedUrl(value.strip(), URL_ENV)), URL_ENV);
    }

    @Override
    public ClientOptions byDefault() {
        return new ClientOptions(this, "--redis", List.of(RedisStore.DEFAULT_URI), null);
    }

    @Override
    public Store store(ClientOptions picked, boolean waitsOrWrites) {
        List<String> urls = picked.urls();
        try {
            return switch (picked.option()) {
                case "--redlock" -> RedisStore.redlock(urls.toArray(String[]::new));
                case "--cluster" -> RedisStore.cluster(urls.toArray(String[]::new));
                default -> RedisStore.standalone(urls.get(0));
            };
        } catch (IllegalArgumentException e) {
            throw new UsageException(picked.option() + ": " + e.getMessage(), e);
        }
    }

    private ClientOptions redlock(List<String> urls) {
        if (urls.size() < 3) {
            throw new UsageException("--redlock needs at least 3 independent masters (an odd number is best), got "
                    + urls.size() + ": " + String.join(",", urls));
        }
        return new ClientOptions(this, "--redlock", urls, "--redlock");
    }

    private ClientOptions cluster(List<String> urls) {
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
        return new ClientOptions(this, "--cluster", urls, "--cluster");
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
            LockClient.builder().store(RedisStore.standalone(url));
        } catch (IllegalArgumentException e) {
            throw new UsageException(from + ": " + e.getMessage(), e);
        }
        return url;
    }
}
