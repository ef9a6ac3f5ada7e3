package dev.dlock.faults;

import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import dev.dlock.RedisStore;
import dev.dlock.testing.PgBouncer;
import dev.dlock.testing.PostgresServer;
import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisSentinelGroup;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * dlock's fault campaign. Client processes (API JVMs, two of them with a wall clock off and running
 * fast or slow, and {@code dlock exec} loops) take a few locks and do fenced read-modify-writes of a
 * counter per lock on a {@link FencedResource}, which records every step; meanwhile a schedule drawn
 * from the seed injects faults; at the end the {@link Checker} judges the history. Over Redis, three
 * phases, one per topology: one Redis (with AOF), Sentinel (master, replica, three sentinels), Cluster
 * (three masters, three replicas). Over PostgreSQL, two phases: one server (clients direct and
 * through PgBouncer in transaction pooling), then a primary and a streaming replica that fail over,
 * with synchronous replication or without.
 *
 * <pre>
 * java -jar dlock-faults/target/dlock-faults.jar [--store redis|postgres] [--duration 15m] [--seed N] [--faults KIND,...] [--report FILE]
 * </pre>
 *
 * Exits 0 when every property held, 1 with each violation and the history around it printed.
 */
public final class Campaign {

    /** The stores a campaign runs over, each in phases of its own. */
    static final List<String> STORES = List.of("redis", "postgres");
    /** Every fault kind on Redis, in the order of the summary table. */
    static final List<String> REDIS_KINDS = List.of("client-kill", "client-stop", "server-kill", "restart-empty",
            "server-stop", "forced-release", "partition", "sentinel-failover", "cluster-failover");
    /** Every fault kind on PostgreSQL, in the order of the summary table. */
    static final List<String> POSTGRES_KINDS = List.of("client-kill", "client-stop", "pg-kill", "pg-stop",
            "pg-restart", "pg-terminate", "forced-release", "bouncer-restart", "pg-sync-failover", "pg-async-failover");

    static final long LEASE_MS = 3000;
    static final long WAIT_MS = 3000;
    static final long LIVENESS_BOUND_MS = 20_000;
    static final long WAIT_SLACK_MS = 3000;
    /** The two skewed clients' wall clocks: one an hour ahead and 1.5 times fast, one an hour behind at half speed. */
    private static final long SKEW_MS = SkewedClock.HOUR_MS;
    private static final double FAST_RATE = 1.5;
    private static final double SLOW_RATE = 0.5;

    record Options(Duration duration, long seed, Set<String> faults, Path report, String store) {

        static Options parse(String... args) {
            Duration duration = Duration.ofMinutes(2);
            long seed = System.nanoTime() % 100_000;
            Set<String> faults = null;
            Path report = null;
            String store = "redis";
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--duration" -> duration = dev.dlock.cli.common.Durations.parse(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--faults" -> faults = new LinkedHashSet<>(List.of(args[++i].split(",")));
                    case "--report" -> report = Path.of(args[++i]);
                    case "--store" -> {
                        store = args[++i];
                        if (!STORES.contains(store)) {
                            throw new IllegalArgumentException("unknown store '" + store + "'; known: " + STORES);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + args[i]
                            + "'; usage: [--store redis|postgres] [--duration 15m] [--seed N] [--faults KIND,...] [--report FILE]");
                }
            }
            if (duration.toSeconds() < 60) {
                throw new IllegalArgumentException("--duration must be at least 1m, got " + duration);
            }
            if (faults == null) {
                faults = new LinkedHashSet<>(kinds(store));
            }
            for (String kind : faults) {
                if (!kinds(store).contains(kind)) {
                    throw new IllegalArgumentException("unknown fault kind '" + kind + "' on " + store + "; known: " + kinds(store));
                }
            }
            return new Options(duration, seed, faults, report, store);
        }
    }

    /** The fault kinds of a store, in the order of the summary table. */
    static List<String> kinds(String store) {
        return store.equals("postgres") ? POSTGRES_KINDS : REDIS_KINDS;
    }

    /** What a campaign found: the verdict, the summary table, and the notes (kinds skipped and why). */
    record Result(Checker.Verdict verdict, String table, List<String> notes, String violationsText) {
    }

    private final Options options;
    private final FaultSchedule faults;
    private final long startNanos = System.nanoTime();
    private final FencedResource resource;
    private final Path dir;
    private final List<String> notes = new ArrayList<>();
    private final List<String> leftovers = new ArrayList<>();
    private final List<String> crashed = new ArrayList<>();
    private Optional<NetworkPartition> partition = Optional.empty();
    private Optional<Path> skewedClockLibrary = Optional.empty();
    private final List<Workers> openWorkers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The clients with a skewed wall clock, and the phase they ran through; null when clock skew was skipped. */
    private Summary.SkewedClients skewedClients;
    /** The clients that poll instead of listening (through PgBouncer), replacements included. */
    private final Set<String> pollingClients = new java.util.HashSet<>();

    private Campaign(Options options) {
        this.options = options;
        try {
            this.dir = Files.createTempDirectory("dlock-faults-");
            this.resource = new FencedResource(InetAddress.getByName("0.0.0.0"), startNanos);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.faults = new FaultSchedule(resource, new Random(options.seed()), crashed::add);
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("dlock-faults: " + e.getMessage());
            System.exit(2);
            return;
        }
        Result result = run(options);
        System.out.println(result.table());
        result.notes().forEach(note -> System.out.println("note: " + note));
        if (!result.verdict().passed()) {
            System.out.println(result.violationsText());
        }
        System.exit(result.verdict().passed() ? 0 : 1);
    }

    static Result run(Options options) throws Exception {
        Campaign campaign = new Campaign(options);
        // a campaign stopped by a signal leaves no client running and no namespace behind
        Thread cleanUp = new Thread(campaign::cleanUp, "dlock-faults-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanUp);
        try {
            return campaign.runPhases();
        } finally {
            campaign.cleanUp();
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        }
    }

    private synchronized void cleanUp() {
        openWorkers.forEach(Workers::close);
        openWorkers.clear();
        resource.close();
        partition.ifPresent(NetworkPartition::close);
        partition = Optional.empty();
    }

    private Workers workers() {
        Workers workers = new Workers(dir, "127.0.0.1", resource.port());
        openWorkers.add(workers);
        return workers;
    }

    private Result runPhases() throws Exception {
        System.out.printf(Locale.ROOT, "dlock-faults: seed %d, duration %s, faults %s; logs in %s%n", options.seed(),
                options.duration(), options.faults(), dir);
        StringBuilder noSkew = new StringBuilder();
        skewedClockLibrary = SkewedClock.compile(dir, noSkew);
        if (skewedClockLibrary.isEmpty()) {
            notes.add(noSkew.toString());
        }
        if (options.store().equals("redis") && options.faults().contains("partition")) {
            StringBuilder whyNot = new StringBuilder();
            partition = NetworkPartition.create(whyNot);
            if (partition.isEmpty()) {
                notes.add(whyNot.toString());
            }
        }
        long total = options.duration().toMillis();
        if (options.store().equals("postgres")) {
            // one PostgreSQL (clients direct and through PgBouncer) has eight fault kinds, the failovers four
            postgres(total * 2 / 3);
            postgresFailovers(total - total * 2 / 3);
        } else {
            // one Redis has seven fault kinds, Sentinel and Cluster three each
            single(total * 3 / 5);
            sentinel(total / 5);
            cluster(total - total * 3 / 5 - total / 5);
        }
        long endMs = resource.nowMs();
        Checker checker = new Checker(resource.history(), resource.counters(), leftovers, LIVENESS_BOUND_MS,
                WAIT_SLACK_MS, LEASE_MS, endMs).pollingClients(pollingClients);
        Checker.Verdict verdict = checker.check();
        crashed.forEach(crash -> verdict.violations().add(new Checker.Violation("clients", endMs, "-", crash)));
        Files.write(dir.resolve("history.txt"), resource.history().stream().map(Event::toString).toList());
        String table = Summary.table(options, resource, verdict, endMs, skewedClients);
        StringBuilder violations = new StringBuilder();
        for (Checker.Violation v : verdict.violations()) {
            violations.append(String.format(Locale.ROOT, "VIOLATION %s at %.3f s: %s%n", v.property(), v.atMs() / 1000.0, v.message()));
            checker.around(v).forEach(e -> violations.append("    ").append(e).append('\n'));
        }
        if (options.report() != null) {
            Files.writeString(options.report(), table + "\n" + String.join("\n", notes) + "\n" + violations);
        }
        return new Result(verdict, table, List.copyOf(notes), violations.toString());
    }

    // ---- phases ----

    private void single(long phaseMs) throws Exception {
        List<String> bind = new ArrayList<>(List.of("--appendonly", "yes", "--appendfsync", "always"));
        partition.ifPresent(p -> bind.addAll(List.of("--bind", "127.0.0.1 " + p.redisHostAddress, "--protected-mode", "no")));
        try (RedisServer redis = RedisServer.start(bind.toArray(String[]::new));
             Workers workers = workers();
             LockClient operator = LockClient.builder().store(RedisStore.standalone(redis.uri())).build()) {
            List<String> locks = List.of("one-a", "one-b");
            startClients(workers, "one", "redis", redis.uri(), List.of("--redis", redis.uri()), locks, true);
            partition.ifPresent(p -> workers.startApi("one", p.wrapper(), null, p.resourceHostAddress, "redis",
                    "redis://" + p.redisHostAddress + ":" + redis.port(), locks, LEASE_MS, WAIT_MS, options.seed() + 500));
            List<String> kinds = applicable(List.of("client-kill", "client-stop", "server-kill", "restart-empty",
                    "server-stop", "forced-release", "partition"));
            faults.run(phaseMs, locks, kinds, faults.standard(workers, redis, operator, locks, partition));
            skewedClients(workers, "single-Redis");
            stopAndCheckLeftovers(workers, () -> redisLeftovers(List.of(redis)));
        }
    }

    private void sentinel(long phaseMs) throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start("faults");
             Workers workers = workers()) {
            List<String> locks = List.of("sen-a", "sen-b");
            startClients(workers, "sen", "redis", group.sentinelUri(), List.of("--redis", group.sentinelUri()), locks, false);
            List<String> kinds = applicable(List.of("client-kill", "client-stop", "sentinel-failover"));
            RedisServer master = group.master();
            faults.run(phaseMs, locks, kinds, faults.failoverOnce("sentinel-failover", "master :" + master.port(), () -> {
                master.kill();
                group.awaitFailover(Duration.ofSeconds(60));
            }, faults.standard(workers, null, null, locks, Optional.empty())));
            stopAndCheckLeftovers(workers, () -> redisLeftovers(List.of(group.master())));
        }
    }

    private void cluster(long phaseMs) throws Exception {
        try (RedisClusterGroup group = RedisClusterGroup.start();
             Workers workers = workers()) {
            List<String> locks = List.of("clu-a", "clu-b", "clu-c");
            String uris = String.join(",", group.uris());
            startClients(workers, "clu", "cluster", uris, List.of("--cluster", uris), locks, false);
            List<String> kinds = applicable(List.of("client-kill", "client-stop", "cluster-failover"));
            RedisServer master = group.masterOf("dlock:{" + locks.get(0) + "}");
            faults.run(phaseMs, locks, kinds, faults.failoverOnce("cluster-failover", "master :" + master.port(),
                    () -> group.killMasterAndAwaitPromotion(master, Duration.ofSeconds(60)),
                    faults.standard(workers, null, null, locks, Optional.empty())));
            stopAndCheckLeftovers(workers, () -> redisLeftovers(group.masters()));
        }
    }

    // ---- PostgreSQL phases ----

    /**
     * One PostgreSQL: two API clients, the two with skewed wall clocks and a {@code dlock exec} loop
     * connect to it directly, two more API clients through a PgBouncer in transaction pooling (they
     * poll instead of LISTEN), all on the same locks.
     */
    private void postgres(long phaseMs) throws Exception {
        try (PostgresServer server = PostgresServer.start();
             PgBouncer bouncer = PgBouncer.start(server, 8);
             LockClient operator = LockClient.builder().store(PostgresStore.url(server.jdbcUrl())).build();
             Workers workers = workers()) {
            List<String> locks = List.of("pg-a", "pg-b");
            startClients(workers, "pg", "postgres", server.jdbcUrl(), List.of("--postgres", server.jdbcUrl()), locks, true);
            for (int i = 0; i < 2; i++) {
                // named bapiN: the clients behind PgBouncer
                workers.startApi("bouncer", List.of(), null, "127.0.0.1", "pgbouncer", bouncer.jdbcUrl(), locks, LEASE_MS,
                        WAIT_MS, options.seed());
            }
            List<String> kinds = applicable(List.of("client-kill", "client-stop", "pg-kill", "pg-stop", "pg-restart",
                    "pg-terminate", "forced-release", "bouncer-restart"));
            faults.run(phaseMs, locks, kinds, faults.postgres(workers, server, bouncer, operator, locks));
            skewedClients(workers, "single-PostgreSQL");
            workers.everStarted().stream().map(Workers.Worker::proc).filter(proc -> proc.startsWith("bapi"))
                    .forEach(pollingClients::add);
            stopAndCheckLeftovers(workers, () -> postgresLeftovers(server));
        }
    }

    /**
     * A primary and a streaming replica. The clients name both ports in their URL with {@code
     * targetServerType=primary}, so PgJDBC connects to whichever is the primary. A failover: the
     * primary is made to replicate synchronously or not (and, synchronously, waits until the replica
     * has all it wrote), then SIGKILL of the primary and the promotion of the replica. Before the
     * next one, a new replica of the new primary is made on the old primary's port.
     */
    private void postgresFailovers(long phaseMs) throws Exception {
        PostgresServer first = PostgresServer.start();
        // the primary, then its replica; every server made is closed at the end
        List<PostgresServer> pair = new ArrayList<>(List.of(first));
        List<PostgresServer> made = new ArrayList<>(List.of(first));
        try (Workers workers = workers()) {
            pair.add(first.startReplica(true));
            made.add(pair.get(1));
            String url = "jdbc:postgresql://127.0.0.1:" + first.port() + ",127.0.0.1:" + pair.get(1).port() + "/"
                    + PostgresServer.DATABASE + "?user=" + PostgresServer.USER + "&password=" + first.password()
                    + "&targetServerType=primary";
            List<String> locks = List.of("fo-a", "fo-b");
            startClients(workers, "failover", "postgres", url, List.of("--postgres", url), locks, false);
            List<String> kinds = applicable(List.of("client-kill", "client-stop", "pg-sync-failover", "pg-async-failover"));
            int[] freedPort = {0};
            Function<Boolean, FaultSchedule.Action> replicaReady = synchronous -> () -> {
                if (pair.size() == 1) {
                    PostgresServer replica = pair.get(0).startReplica(synchronous, freedPort[0]);
                    made.add(replica);
                    pair.add(replica);
                } else {
                    pair.get(0).replicateSynchronously(synchronous);
                }
                if (synchronous) {
                    pair.get(0).awaitFlushedOn(pair.get(1));
                }
            };
            FaultSchedule.Action failover = () -> {
                PostgresServer primary = pair.remove(0);
                primary.kill();
                freedPort[0] = primary.port();
                pair.get(0).promote();
                primary.close();
            };
            Supplier<String> target = () -> "primary :" + pair.get(0).port();
            FaultSchedule.Injector clients = faults.postgres(workers, null, null, null, locks);
            faults.run(phaseMs, locks, kinds, faults.failoverEach("pg-async-failover", target, replicaReady.apply(false),
                    failover, faults.failoverEach("pg-sync-failover", target, replicaReady.apply(true), failover, clients)));
            stopAndCheckLeftovers(workers, () -> postgresLeftovers(pair.get(0)));
        } finally {
            made.forEach(PostgresServer::close);
        }
    }

    /** Starts a phase's clients: two API clients, the two whose wall clock is skewed if asked, and a loop of {@code dlock exec}. */
    private void startClients(Workers workers, String phase, String topology, String uris, List<String> cliTopology,
                              List<String> locks, boolean skewedClocks) {
        for (int i = 0; i < 2; i++) {
            workers.startApi(phase, List.of(), null, "127.0.0.1", topology, uris, locks, LEASE_MS, WAIT_MS, options.seed());
        }
        if (skewedClocks && skewedClockLibrary.isPresent()) {
            Path library = skewedClockLibrary.get();
            workers.startApi(phase, List.of(), new SkewedClock(library, SKEW_MS, FAST_RATE), "127.0.0.1", topology, uris,
                    locks, LEASE_MS, WAIT_MS, options.seed());
            workers.startApi(phase, List.of(), new SkewedClock(library, -SKEW_MS, SLOW_RATE), "127.0.0.1", topology, uris,
                    locks, LEASE_MS, WAIT_MS, options.seed());
        }
        workers.startExec(phase, cliTopology, locks, LEASE_MS, WAIT_MS);
    }

    /** Notes for the summary the phase's clients whose wall clock is skewed, those in place of killed ones too. */
    private void skewedClients(Workers workers, String phase) {
        if (skewedClockLibrary.isPresent()) {
            skewedClients = Summary.SkewedClients.of(phase, workers.everStarted());
        }
    }

    private List<String> applicable(List<String> kinds) {
        return kinds.stream().filter(options.faults()::contains)
                .filter(kind -> !kind.equals("partition") || partition.isPresent()).toList();
    }

    /**
     * Stops every client (SIGKILL: nothing is released, leases and waiter deadlines must free it all),
     * then waits up to 15 s for the store to hold nothing but documented bookkeeping (on Redis token
     * floors and client records; on PostgreSQL rows whose lease or deadline has passed, which are no
     * holds and are deleted by the next change or sweep). What is still there is reported.
     */
    private void stopAndCheckLeftovers(Workers workers, Supplier<List<String>> leftoversInStore) throws InterruptedException {
        for (Workers.Worker worker : workers.running()) {
            if (!worker.process().isAlive()) {
                crashed.add(worker.proc() + " exited by itself with " + worker.process().exitValue() + "; its log: "
                        + worker.log());
            }
        }
        workers.close();
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        List<String> left;
        do {
            Thread.sleep(500);
            left = leftoversInStore.get();
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        leftovers.addAll(left);
    }

    private static List<String> redisLeftovers(List<RedisServer> masters) {
        List<String> left = new ArrayList<>();
        for (RedisServer master : masters) {
            if (master.isRunning()) {
                for (String key : master.keys("dlock:*")) {
                    if (!key.startsWith("dlock:token-floor") && !key.startsWith("dlock:client:")) {
                        left.add(key + " on " + master);
                    }
                }
            }
        }
        return left;
    }

    /** Live holds and waiters on the database's clock: a row whose lease or deadline passed is none. */
    private static List<String> postgresLeftovers(PostgresServer server) {
        String rows = server.sql("SELECT 'hold ' || name || ' of ' || owner FROM dlock_hold WHERE lease_end > clock_timestamp()"
                + " UNION ALL SELECT 'waiter ' || waiter_id || ' on ' || name FROM dlock_waiter WHERE deadline > clock_timestamp()");
        return rows.isEmpty() ? List.of() : rows.lines().map(row -> row + " on " + server).toList();
    }
}
