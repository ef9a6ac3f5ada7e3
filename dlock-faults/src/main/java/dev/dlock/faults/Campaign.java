package dev.dlock.faults;

import dev.dlock.LockClient;
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

/**
 * dlock's fault campaign. Client processes (API JVMs, two of them with a wall clock off and running
 * fast or slow, and {@code dlock exec} loops) take a few locks and do fenced read-modify-writes of a
 * counter per lock on a {@link FencedResource}, which records every step; meanwhile a schedule drawn
 * from the seed injects faults; at the end the {@link Checker} judges the history. Three phases, one
 * per topology: one Redis (with AOF), Sentinel (master, replica, three sentinels), Cluster (three
 * masters, three replicas).
 *
 * <pre>
 * java -jar dlock-faults/target/dlock-faults.jar [--duration 15m] [--seed N] [--faults KIND,...] [--report FILE]
 * </pre>
 *
 * Exits 0 when every property held, 1 with each violation and the history around it printed.
 */
public final class Campaign {

    /** Every fault kind, in the order of the summary table. */
    static final List<String> KINDS = List.of("client-kill", "client-stop", "server-kill", "restart-empty",
            "server-stop", "forced-release", "partition", "sentinel-failover", "cluster-failover");

    static final long LEASE_MS = 3000;
    static final long WAIT_MS = 3000;
    static final long LIVENESS_BOUND_MS = 20_000;
    static final long WAIT_SLACK_MS = 3000;
    /** The two skewed clients' wall clocks: one an hour ahead and 1.5 times fast, one an hour behind at half speed. */
    private static final long SKEW_MS = SkewedClock.HOUR_MS;
    private static final double FAST_RATE = 1.5;
    private static final double SLOW_RATE = 0.5;

    record Options(Duration duration, long seed, Set<String> faults, Path report) {

        static Options parse(String... args) {
            Duration duration = Duration.ofMinutes(2);
            long seed = System.nanoTime() % 100_000;
            Set<String> faults = new LinkedHashSet<>(KINDS);
            Path report = null;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--duration" -> duration = dev.dlock.cli.Durations.parse(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--faults" -> {
                        faults = new LinkedHashSet<>(List.of(args[++i].split(",")));
                        for (String kind : faults) {
                            if (!KINDS.contains(kind)) {
                                throw new IllegalArgumentException("unknown fault kind '" + kind + "'; known: " + KINDS);
                            }
                        }
                    }
                    case "--report" -> report = Path.of(args[++i]);
                    default -> throw new IllegalArgumentException("unknown option '" + args[i]
                            + "'; usage: [--duration 15m] [--seed N] [--faults KIND,...] [--report FILE]");
                }
            }
            if (duration.toSeconds() < 60) {
                throw new IllegalArgumentException("--duration must be at least 1m, got " + duration);
            }
            return new Options(duration, seed, faults, report);
        }
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
        if (options.faults().contains("partition")) {
            StringBuilder whyNot = new StringBuilder();
            partition = NetworkPartition.create(whyNot);
            if (partition.isEmpty()) {
                notes.add(whyNot.toString());
            }
        }
        long total = options.duration().toMillis();
        // one Redis has seven fault kinds, Sentinel and Cluster three each
        single(total * 3 / 5);
        sentinel(total / 5);
        cluster(total - total * 3 / 5 - total / 5);
        long endMs = resource.nowMs();
        Checker checker = new Checker(resource.history(), resource.counters(), leftovers, LIVENESS_BOUND_MS,
                WAIT_SLACK_MS, LEASE_MS, endMs);
        Checker.Verdict verdict = checker.check();
        crashed.forEach(crash -> verdict.violations().add(new Checker.Violation("clients", endMs, "-", crash)));
        Files.write(dir.resolve("history.txt"), resource.history().stream().map(Event::toString).toList());
        String table = Summary.table(options, resource, verdict, endMs, skewedClockLibrary.isEmpty() ? null
                : List.of(new SkewedClock(null, SKEW_MS, FAST_RATE).label(), new SkewedClock(null, -SKEW_MS, SLOW_RATE).label()));
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
             LockClient operator = LockClient.builder().redisUri(redis.uri()).build()) {
            List<String> locks = List.of("one-a", "one-b");
            startClients(workers, "one", "redis", redis.uri(), List.of("--redis", redis.uri()), locks, true);
            partition.ifPresent(p -> workers.startApi("one", p.wrapper(), null, p.resourceHostAddress, "redis",
                    "redis://" + p.redisHostAddress + ":" + redis.port(), locks, LEASE_MS, WAIT_MS, options.seed() + 500));
            List<String> kinds = applicable(List.of("client-kill", "client-stop", "server-kill", "restart-empty",
                    "server-stop", "forced-release", "partition"));
            faults.run(phaseMs, locks, kinds, faults.standard(workers, redis, operator, locks, partition));
            stopAndCheckLeftovers(workers, List.of(redis));
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
            stopAndCheckLeftovers(workers, List.of(group.master()));
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
            stopAndCheckLeftovers(workers, group.masters());
        }
    }

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

    private List<String> applicable(List<String> kinds) {
        return kinds.stream().filter(options.faults()::contains)
                .filter(kind -> !kind.equals("partition") || partition.isPresent()).toList();
    }

    /**
     * Stops every client (SIGKILL: nothing is released, leases and waiter deadlines must free it all),
     * then waits up to 15 s for the store to hold nothing but documented bookkeeping: token floors and
     * client records. What is still there is reported.
     */
    private void stopAndCheckLeftovers(Workers workers, List<RedisServer> masters) throws InterruptedException {
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
            left = new ArrayList<>();
            for (RedisServer master : masters) {
                if (master.isRunning()) {
                    for (String key : master.keys("dlock:*")) {
                        if (!key.startsWith("dlock:token-floor") && !key.startsWith("dlock:client:")) {
                            left.add(key + " on " + master);
                        }
                    }
                }
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        leftovers.addAll(left);
    }
}
