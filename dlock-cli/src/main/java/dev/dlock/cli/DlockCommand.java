package dev.dlock.cli;

import dev.dlock.LockClient;
import dev.dlock.cli.demo.DemoCommand;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code dlock} command and its global options, which may stand before or after the
 * subcommand ({@code dlock --redis URL status x} or {@code dlock status --redis URL x}).
 */
@Command(name = "dlock",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Distributed locks on Redis, from the command line.",
        subcommands = {DemoCommand.class, ExecCommand.class, StatusCommand.class, ListCommand.class,
                ReleaseCommand.class, HelpCommand.class},
        footerHeading = "%nRedis:%n",
        footer = {
                "  --redis URL, else $REDIS_URL, else redis://127.0.0.1:6379. The demo",
                "  alone goes on, when nothing answers there, to a redis-server of its own.",
                "%nExit codes:",
                "    0  ok",
                "    1  exec: lock not acquired within --wait; release: lock not held;",
                "       demo: the lock mode did not sell exactly the stock",
                "    2  bad input, or Redis unreachable",
                "   70  internal error (a bug: please report it)",
                "  122  exec: the lock was lost while the command ran, which was stopped",
                "  126  exec: the command cannot be executed; 127: not found",
                "  else exec: the command's own exit code",
                "%nDurations: 500ms, 10s, 2m, 1h, 1d, combined as 1m30s, or ISO-8601 PT10S."})
public final class DlockCommand implements Runnable {

    static final String REDIS_URL_ENV = "REDIS_URL";
    private static final Pattern URL_SCHEME = Pattern.compile("^(redis|rediss|redis-socket)://.+");

    @Option(names = "--redis", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = {"Redis URL: redis://[user:password@]host:port[/db]",
                    "or rediss://... for TLS. Default: $REDIS_URL, else",
                    "redis://127.0.0.1:6379."})
    private String redis;

    @Option(names = "--prefix", paramLabel = "PREFIX", scope = ScopeType.INHERIT,
            description = "Key prefix of the locks (default: ${DEFAULT-VALUE}).",
            defaultValue = LockClient.DEFAULT_KEY_PREFIX)
    private String prefix;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Show stack traces with errors, and dlock's log.")
    private boolean verbose;

    @Override
    public void run() {
        throw new UsageException("missing command: demo, exec, status, list or release (see 'dlock --help')");
    }

    public boolean verbose() {
        return verbose;
    }

    public String prefix() {
        return prefix;
    }

    /** {@code --redis}, else {@code $REDIS_URL}; null when neither is given. */
    public RedisSource explicitRedis() {
        if (redis != null) {
            return new RedisSource(checkedUrl(redis, "--redis"), "--redis");
        }
        String fromEnv = System.getenv(REDIS_URL_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new RedisSource(checkedUrl(fromEnv.strip(), REDIS_URL_ENV), REDIS_URL_ENV);
        }
        return null;
    }

    /** The Redis of every command but the demo: explicit, else the default address. */
    public String redisUrl() {
        RedisSource explicit = explicitRedis();
        return explicit != null ? explicit.url() : LockClient.DEFAULT_REDIS_URI;
    }

    /**
     * A client builder for {@code url} with the global options applied.
     *
     * @throws UsageException the URL or prefix is not acceptable
     */
    public LockClient.Builder clientBuilder(String url) {
        LockClient.Builder builder = LockClient.builder();
        try {
            builder.redisUri(url);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        try {
            builder.keyPrefix(prefix);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--prefix: " + e.getMessage(), e);
        }
        return builder;
    }

    /** A client on {@link #redisUrl()}; exits with a one-line error when Redis is not there. */
    public LockClient connect(Duration commandTimeout) {
        return clientBuilder(redisUrl()).commandTimeout(commandTimeout).build();
    }

    /**
     * Refuses what Lettuce would misread rather than reject: without a scheme it fails obscurely, and
     * a port that is not a number becomes part of a host name that DNS then cannot find.
     */
    private static String checkedUrl(String url, String from) {
        String expected = "; expected redis://[user:password@]host:port[/db] or rediss://... for TLS";
        if (!URL_SCHEME.matcher(url).matches()) {
            throw new UsageException(from + ": '" + url + "' is not a Redis URL" + expected);
        }
        if (url.startsWith("redis-socket://")) {
            return url;
        }
        try {
            URI parsed = new URI(url);
            if (parsed.getHost() == null) {
                throw new UsageException(from + ": '" + url + "' is not a Redis URL: no host, or a port that is "
                        + "not a number" + expected);
            }
        } catch (URISyntaxException e) {
            throw new UsageException(from + ": '" + url + "' is not a Redis URL: " + e.getMessage() + expected, e);
        }
        return url;
    }

    /** A Redis URL and where it came from ({@code --redis} or {@code REDIS_URL}). */
    public record RedisSource(String url, String origin) {
    }
}
