package dev.dlock.cli;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.NodeError;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.UsageException;
import dev.dlock.cli.demo.DemoCommand;
import dev.dlock.cli.doctor.DoctorCommand;
import dev.dlock.cli.exec.ExecCommand;
import dev.dlock.cli.inspect.ListCommand;
import dev.dlock.cli.inspect.StatusCommand;
import dev.dlock.cli.inspect.TopCommand;
import dev.dlock.cli.release.ReleaseCommand;
import dev.dlock.cli.store.ClientOptions;
import dev.dlock.cli.store.Stores;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.TypeConversionException;

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
                "  nodes; or --postgres URL (else $DLOCK_POSTGRES_URL): the locks in PostgreSQL;",
                "  or --zookeeper CONNECT (else $DLOCK_ZOOKEEPER): the locks in ZooKeeper.",
                "  One of the five. The demo runs on one Redis (going on, when nothing answers",
                "  at the default address, to its own redis-server), PostgreSQL or ZooKeeper.",
                "  $DLOCK_COMMAND_TIMEOUT (default 3s): how long to wait for each answer",
                "  (exec: at most a quarter of --lease); connecting to Redis or ZooKeeper",
                "  gets 3s at least.",
                "%nExit codes:",
                "    0  ok; doctor: every check OK",
                "    1  exec: lock not acquired within --wait; release: lock not held;",
                "       demo: the lock mode did not sell exactly the stock; doctor: warnings",
                "    2  bad input; doctor: failures",
                "   69  the store (Redis, PostgreSQL) unreachable or failing",
                "   70  internal error (a bug: please report it)",
                "  122  exec: the lock was lost while the command ran, which was stopped",
                "  126  exec: the command cannot be executed",
                "  127  exec: the command was not found",
                "  else exec: the command's own exit code",
                "%nDurations: 500ms, 10s, 2m, 1h, 1d, combined as 1m30s, or ISO-8601 PT10S."})
public final class DlockCommand implements Runnable {

    static final String COMMAND_TIMEOUT_ENV = "DLOCK_COMMAND_TIMEOUT";

    /** The subcommands, by name, in the order the help lists them. */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

    /** Root options that take a value, which a scan for the subcommand's name must step over. */
    static final Set<String> OPTIONS_WITH_VALUE = optionsWithValue();

    private static Set<String> optionsWithValue() {
        Set<String> all = new HashSet<>(Stores.optionsWithValue());
        all.add("--prefix");
        return Set.copyOf(all);
    }

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

    /** --redis, --redlock, --cluster, --postgres and its settings, --zookeeper: the store options, one class each. */
    @Mixin
    private Stores stores = new Stores();

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
        return stores.pick();
    }

    /**
     * The demo's PostgreSQL when named: {@code --postgres}, else {@code $DLOCK_POSTGRES_URL} (as for
     * the other commands); null when the options name a Redis or nothing.
     *
     * @throws UsageException the options exclude each other, or the URL is not acceptable
     */
    public PostgresSource explicitPostgres() {
        if (stores.given().contains("--redlock") || stores.given().contains("--cluster")) {
            return null;
        }
        ClientOptions options = clientOptions();
        if (options.isZooKeeper()) {
            return null;
        }
        return options.isPostgres()
                ? new PostgresSource(options.postgresUrl(), options.origin())
                : null;
    }

    /**
     * The demo's ZooKeeper ensemble when named ({@code --zookeeper}, else {@code $DLOCK_ZOOKEEPER}): its
     * connect string and where it came from; null when the options name another store or nothing.
     */
    public String[] explicitZooKeeper() {
        if (stores.given().contains("--redlock") || stores.given().contains("--cluster")) {
            return null;
        }
        ClientOptions options = clientOptions();
        return options.isZooKeeper() ? new String[] {options.urls().get(0), options.origin()} : null;
    }

    /**
     * The demo's Redis when named: {@code --redis}, else {@code $REDIS_URL}; null when neither is
     * given. The demo runs on one Redis, or on PostgreSQL ({@link #explicitPostgres()}, asked first).
     *
     * @throws UsageException {@code --redlock}, {@code --cluster} or PostgreSQL is given, or the URL is not acceptable
     */
    public RedisSource explicitRedis() {
        if (stores.given().contains("--redlock") || stores.given().contains("--cluster")) {
            throw new UsageException((stores.given().contains("--redlock") ? "--redlock" : "--cluster")
                    + " is for exec, status, list, top and release: the demo runs on one Redis (--redis URL) "
                    + "or on PostgreSQL (--postgres URL) or ZooKeeper (--zookeeper CONNECT)");
        }
        ClientOptions options = clientOptions();
        if (options.isPostgres()) {
            throw new IllegalStateException("PostgreSQL is named: the demo asks explicitPostgres() first");
        }
        return options.isSingleRedis() && options.origin() != null ? new RedisSource(options.redisUrl(), options.origin())
                : null;
    }

    /**
     * A client builder for the topology of the options ({@link #clientOptions()}), with the
     * global options applied.
     *
     * @throws UsageException the options, a URL or the prefix are not acceptable
     */
    public LockClientBuilder clientBuilder() {
        return clientBuilder(true);
    }

    /**
     * As {@link #clientBuilder()}; on PostgreSQL with the {@code --postgres-...} options, and for a
     * command that never waits for a lock nor writes one ({@code waitsOrWrites} false: status, list,
     * top, release) polling without the NOTIFY test and never creating the schema.
     */
    private LockClientBuilder clientBuilder(boolean waitsOrWrites) {
        return withPrefix(stores.builder(waitsOrWrites));
    }

    /**
     * The schema of dlock's tables on PostgreSQL as the options name it: {@code --postgres-schema},
     * else {@code $DLOCK_POSTGRES_SCHEMA}; null when neither does (the library's default, public). Only
     * when the options pick PostgreSQL.
     */
    public String postgresSchema() {
        return clientOptions().postgresSchema();
    }

    /**
     * A client builder for one Redis at {@code url} with the global options applied.
     *
     * @throws UsageException the URL or prefix is not acceptable
     */
    public LockClientBuilder clientBuilder(String url) {
        LockClientBuilder builder = LockClient.builder();
        try {
            builder.store(RedisStore.standalone(url));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        return withPrefix(builder);
    }

    /**
     * A client for the options' topology, for a command that never waits for a lock (status, list,
     * top, release): on PostgreSQL it polls, skips the NOTIFY test and never creates the schema;
     * exits with a one-line error when the store is not there.
     */
    public LockClient connect() {
        Duration timeout = commandTimeout();
        LockClientBuilder builder = clientBuilder(false).commandTimeout(timeout);
        if (timeout.compareTo(LockClient.DEFAULT_LEASE.dividedBy(3)) >= 0) {
            // no hold is taken: the lease only has to be one the builder accepts with this timeout
            builder.defaultLease(timeout.multipliedBy(4));
        }
        try {
            return build(builder);
        } catch (LockBackendException e) {
            if (e.nodeErrors().stream().anyMatch(error -> error.cause() == NodeError.Cause.REFUSED)
                    && String.valueOf(e.getMessage()).startsWith("dlock's schema is missing")) {
                throw new UsageException(e.getMessage() + " (exec creates it on first use; status, list, top and "
                        + "release never do: nothing was ever locked in this schema, or give --postgres-schema)", e);
            }
            throw e;
        }
    }

    /**
     * How long to wait for each answer of the store (connecting to Redis or ZooKeeper gets 3 s at least:
     * see {@link dev.dlock.LockClientBuilder#commandTimeout}): {@code $DLOCK_COMMAND_TIMEOUT}
     * (for a slow link or a loaded machine), else {@link LockClient#DEFAULT_COMMAND_TIMEOUT}.
     *
     * @throws UsageException the variable is not a duration the library takes as a command timeout
     */
    public Duration commandTimeout() {
        String value = System.getenv(COMMAND_TIMEOUT_ENV);
        if (value == null || value.isBlank()) {
            return LockClient.DEFAULT_COMMAND_TIMEOUT;
        }
        try {
            Duration timeout = Durations.parse(value);
            LockClient.builder().commandTimeout(timeout);
            return timeout;
        } catch (TypeConversionException | IllegalArgumentException e) {
            throw new UsageException(COMMAND_TIMEOUT_ENV + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks NAME before anything connects, so that a bad name is bad input at once.
     *
     * @throws UsageException the name is blank or too long
     */
    public static String checkName(String name) {
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
    public static LockClient build(LockClientBuilder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            String message = String.valueOf(e.getMessage());
            throw new UsageException(message.startsWith("RedisStore.redlock") ? "--redlock: " + message : message, e);
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
