package dev.dlock.cli;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.cli.demo.DemoCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
        footerHeading = "%nRedis:%n",
        footer = {
                "  --redis URL, else $REDIS_URL, else redis://127.0.0.1:6379 (a Sentinel URL",
                "  names the master the sentinels report). Or --redlock URL,URL,URL: a Redlock",
                "  over independent masters; or --cluster URL[,URL...]: a Redis Cluster's",
                "  nodes; or --postgres URL (else $DLOCK_POSTGRES_URL): the locks in PostgreSQL.",
                "  One of the four. The demo runs on one Redis (going on, when nothing answers",
                "  at the default address, to a redis-server of its own) or on PostgreSQL.",
                "%nExit codes:",
                "    0  ok",
                "    1  exec: lock not acquired within --wait; release: lock not held;",
                "       demo: the lock mode did not sell exactly the stock",
                "    2  bad input",
                "   69  Redis unreachable or failing",
                "   70  internal error (a bug: please report it)",
                "  122  exec: the lock was lost while the command ran, which was stopped",
                "  doctor: 0 every check OK, 1 warnings, 2 failures",
                "  126  exec: the command cannot be executed; 127: not found",
                "  else exec: the command's own exit code",
                "%nDurations: 500ms, 10s, 2m, 1h, 1d, combined as 1m30s, or ISO-8601 PT10S."})
public final class DlockCommand implements Runnable {

    static final String REDIS_URL_ENV = "REDIS_URL";
    static final String POSTGRES_URL_ENV = "DLOCK_POSTGRES_URL";

    /** The subcommands, by name, in the order the help lists them. */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

    /** Root options that take a value, which a scan for the subcommand's name must step over. */
    private static final Set<String> OPTIONS_WITH_VALUE = Set.of("--redis", "--redlock", "--cluster", "--postgres",
            "--prefix");

    private static Map<String, Class<?>> subcommands() {
        Map<String, Class<?>> all = new LinkedHashMap<>();
        all.put("demo", DemoCommand.class);
        all.put("exec", ExecCommand.class);
        all.put("status", StatusCommand.class);
        all.put("list", ListCommand.class);
        all.put("top", TopCommand.class);
        all.put("watch", TopCommand.class);
        all.put("release", ReleaseCommand.class);
        all.put("doctor", DoctorCommand.class);
        all.put("help", HelpCommand.class);
        return Collections.unmodifiableMap(all);
    }

    /** Each subcommand once (an alias names a command that is there already). */
    private static Collection<Class<?>> allSubcommands() {
        return new LinkedHashSet<>(SUBCOMMANDS.values());
    }

    /**
     * The subcommands to build for these arguments: only the one they name, when they name one
     * (before {@code --}) other than {@code help}; else all of them, so that the root's help and
     * its errors ("did you mean ...") know every command. Building a command's model is most of
     * the command line's start-up, and a short command needs one.
     */
    static Collection<Class<?>> subcommandsFor(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                break;
            }
            if (arg.startsWith("-")) {
                if (OPTIONS_WITH_VALUE.contains(arg)) {
                    i++;
                }
                continue;
            }
            Class<?> named = SUBCOMMANDS.get(arg);
            return named == null || named == HelpCommand.class ? allSubcommands() : List.of(named);
        }
        return allSubcommands();
    }

    @Option(names = "--redis", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = {"Redis URL: redis://[user:password@]host:port[/db],",
                    "rediss://... for TLS, or a master Sentinels name:",
                    "redis-sentinel://h:p[,h:p...]?sentinelMasterId=NAME",
                    "(or ...#NAME, as Lettuce writes it).",
                    "Default: $REDIS_URL, else redis://127.0.0.1:6379."})
    private String redis;

    @Option(names = "--redlock", paramLabel = "URL[,URL...]", scope = ScopeType.INHERIT,
            description = {"Redlock over independent masters: at least 3 URLs,",
                    "comma-separated or the option repeated. Excludes --redis",
                    "and --cluster."})
    private List<String> redlock = new ArrayList<>();

    @Option(names = "--cluster", paramLabel = "URL[,URL...]", scope = ScopeType.INHERIT,
            description = {"Redis Cluster: the URLs of one or more of its nodes",
                    "(redis:// or rediss://), comma-separated or the option",
                    "repeated. Excludes --redis and --redlock."})
    private List<String> cluster = new ArrayList<>();

    @Option(names = "--postgres", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = {"PostgreSQL instead of Redis:",
                    "jdbc:postgresql://host:port/db?user=...&password=...",
                    "(or postgresql://...). Default: $DLOCK_POSTGRES_URL.",
                    "Excludes --redis, --redlock and --cluster."})
    private String postgres;

    @Option(names = "--prefix", paramLabel = "PREFIX", scope = ScopeType.INHERIT,
            description = "Key prefix of the locks (default: ${DEFAULT-VALUE}).",
            defaultValue = LockClient.DEFAULT_KEY_PREFIX)
    private String prefix;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Show stack traces with errors, and dlock's log.")
    private boolean verbose;

    @Override
    public void run() {
        throw new UsageException("missing command: demo, exec, status, list, top, release or doctor (see 'dlock --help')");
    }

    public boolean verbose() {
        return verbose;
    }

    public String prefix() {
        return prefix;
    }

    /**
     * Where the locks live: {@code --redis}, {@code --redlock} or {@code --cluster}, else
     * {@code $REDIS_URL}, else the default address.
     *
     * @throws UsageException the options exclude each other, or a URL is not acceptable
     */
    public ClientOptions clientOptions() {
        return ClientOptions.of(redis, System.getenv(REDIS_URL_ENV), redlock, cluster, postgres,
                System.getenv(POSTGRES_URL_ENV));
    }

    /**
     * The demo's PostgreSQL when named: {@code --postgres}, else {@code $DLOCK_POSTGRES_URL} (as for
     * the other commands); null when the options name a Redis or nothing.
     *
     * @throws UsageException the options exclude each other, or the URL is not acceptable
     */
    public PostgresSource explicitPostgres() {
        if (!redlock.isEmpty() || !cluster.isEmpty()) {
            return null;
        }
        ClientOptions options = clientOptions();
        return options.isPostgres()
                ? new PostgresSource(options.postgresUrl(), postgres != null ? "--postgres" : POSTGRES_URL_ENV)
                : null;
    }

    /**
     * The demo's Redis when named: {@code --redis}, else {@code $REDIS_URL}; null when neither is
     * given. The demo runs on one Redis, or on PostgreSQL ({@link #explicitPostgres()}, asked first).
     *
     * @throws UsageException {@code --redlock}, {@code --cluster} or PostgreSQL is given, or the URL is not acceptable
     */
    public RedisSource explicitRedis() {
        if (!redlock.isEmpty() || !cluster.isEmpty()) {
            throw new UsageException((redlock.isEmpty() ? "--cluster" : "--redlock")
                    + " is for exec, status, list, top and release: the demo runs on one Redis (--redis URL) "
                    + "or on PostgreSQL (--postgres URL)");
        }
        ClientOptions options = clientOptions();
        if (options.isPostgres()) {
            throw new IllegalStateException("PostgreSQL is named: the demo asks explicitPostgres() first");
        }
        if (redis != null) {
            return new RedisSource(options.redisUrl(), "--redis");
        }
        String fromEnv = System.getenv(REDIS_URL_ENV);
        return fromEnv != null && !fromEnv.isBlank() ? new RedisSource(options.redisUrl(), REDIS_URL_ENV) : null;
    }

    /**
     * A client builder for the topology of the options ({@link #clientOptions()}), with the
     * global options applied.
     *
     * @throws UsageException the options, a URL or the prefix are not acceptable
     */
    public LockClientBuilder clientBuilder() {
        return withPrefix(clientOptions().builder());
    }

    /**
     * A client builder for one Redis at {@code url} with the global options applied.
     *
     * @throws UsageException the URL or prefix is not acceptable
     */
    public LockClientBuilder clientBuilder(String url) {
        LockClientBuilder builder = LockClient.builder();
        try {
            builder.redisUri(url);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        return withPrefix(builder);
    }

    /** A client for the options' topology; exits with a one-line error when Redis is not there. */
    public LockClient connect(Duration commandTimeout) {
        return build(clientBuilder().commandTimeout(commandTimeout));
    }

    /**
     * Checks NAME before anything connects, so that a bad name is bad input at once.
     *
     * @throws UsageException the name is blank or too long
     */
    static String checkName(String name) {
        try {
            return LockClient.checkName(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException("bad lock name: " + e.getMessage(), e);
        }
    }

    /**
     * Builds the client; what the builder refuses on connecting (Redlock URLs that turn out to name
     * one server) is bad input.
     *
     * @throws UsageException the builder refused its settings
     */
    static LockClient build(LockClientBuilder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            String message = String.valueOf(e.getMessage());
            throw new UsageException(message.startsWith("redlockNodes") ? "--redlock: " + message : message, e);
        }
    }

    private LockClientBuilder withPrefix(LockClientBuilder builder) {
        try {
            builder.keyPrefix(prefix);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--prefix: " + e.getMessage(), e);
        }
        return builder;
    }

    /** A Redis URL and where it came from ({@code --redis} or {@code REDIS_URL}). */
    public record RedisSource(String url, String origin) {
    }

    /** A PostgreSQL URL and where it came from ({@code --postgres} or {@code DLOCK_POSTGRES_URL}). */
    public record PostgresSource(String url, String origin) {
    }
}
