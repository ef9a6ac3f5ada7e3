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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

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
    private final Random random;
    private final long startNanos = System.nanoTime();
    private final FencedResource resource;
    private final Path dir;
    private final List<String> notes = new ArrayList<>();
    private final List<String> leftovers = new ArrayList<>();
    private final List<String> crashed = new ArrayList<>();
    private final Map<String, Integer> injected = new LinkedHashMap<>();
    private Optional<NetworkPartition> partition = Optional.empty();
    private Optional<Path> skewedClockLibrary = Optional.empty();
    private int stops;
    private final List<Workers> openWorkers = new java.util.concurrent.CopyOnWriteArrayList<>();

    private Campaign(Options options) {
        this.options = options;
        this.random = new Random(options.seed());
        try {
            this.dir = Files.createTempDirectory("dlock-faults-");
            this.resource = new FencedResource(InetAddress.getByName("0.0.0.0"), startNanos);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
        String table = table(verdict, endMs);
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
            schedule(phaseMs, locks, kinds, kind -> inject(kind, workers, redis, operator, locks, "one"));
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
            schedule(phaseMs, locks, kinds, failoverOnce("sentinel-failover", "master :" + master.port(), () -> {
                master.kill();
                group.awaitFailover(Duration.ofSeconds(60));
            }, kind -> inject(kind, workers, null, null, locks, "sen")));
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
            schedule(phaseMs, locks, kinds, failoverOnce("cluster-failover", "master :" + master.port(),
                    () -> group.killMasterAndAwaitPromotion(master, Duration.ofSeconds(60)),
                    kind -> inject(kind, workers, null, null, locks, "clu")));
            stopAndCheckLeftovers(workers, group.masters());
        }
    }

    /** Injects the phase's failover the first time it is drawn (the group has one replica to promote), other kinds by {@code others}. */
    private Injector failoverOnce(String failover, String target, Action action, Injector others) {
        boolean[] done = {false};
        return kind -> {
            if (!kind.equals(failover)) {
                others.inject(kind);
            } else if (!done[0]) {
                done[0] = true;
                fault(kind, target, action);
            }
        };
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

    private interface Injector {
        void inject(String kind) throws Exception;
    }

    /** Faults drawn from the seed, one at a time, 1.5 to 3 s apart, until the phase's last 12 s (left for recovery). */
    private void schedule(long phaseMs, List<String> locks, List<String> kinds, Injector injector) throws Exception {
        long start = resource.nowMs();
        long end = start + phaseMs;
        // faults start once the clients work (JVMs start slowly on a busy machine), and not before 5 s
        while (locks.stream().allMatch(lock -> resource.counters().getOrDefault(lock, new long[2])[1] == 0)) {
            if (resource.nowMs() - start > 60_000) {
                crashed.add("no write accepted on " + locks + " within 60 s of the phase's start");
                break;
            }
            Thread.sleep(200);
        }
        Thread.sleep(Math.max(0, start + 5000 - resource.nowMs()));
        end = Math.max(end, resource.nowMs() + 12_000 + 3000);
        List<String> unused = new ArrayList<>(kinds);
        // a phase's failover comes first: the one fault only that topology has
        unused.stream().filter(kind -> kind.endsWith("-failover")).findFirst().ifPresent(failover -> {
            unused.remove(failover);
            unused.add(0, failover);
        });
        boolean first = true;
        while (resource.nowMs() < end - 12_000 && !kinds.isEmpty()) {
            // every kind once before any twice, so a short run still sees them all
            String kind = unused.isEmpty() ? kinds.get(random.nextInt(kinds.size()))
                    : unused.remove(first && unused.get(0).endsWith("-failover") ? 0 : random.nextInt(unused.size()));
            first = false;
            injector.inject(kind);
            Thread.sleep(1500 + random.nextInt(1500));
        }
        long left = end - resource.nowMs();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    private interface Action {
        void run() throws Exception;
    }

    private void fault(String kind, String target, Action action) throws Exception {
        injected.merge(kind, 1, Integer::sum);
        resource.record("FAULT", kind, target);
        action.run();
        resource.record("HEALED", kind, target);
    }

    private void inject(String kind, Workers workers, RedisServer redis, LockClient operator, List<String> locks,
                        String phase) throws Exception {
        switch (kind) {
            case "client-kill" -> {
                Workers.Worker victim = pick(workers.running());
                fault(kind, victim.proc(), () -> {
                    workers.kill(victim);
                    // a like one takes its place, so the mix of clients stays
                    victim.replacement().get();
                });
            }
            case "client-stop" -> {
                List<Workers.Worker> api = workers.running().stream().filter(w -> w.kind().equals("api")).toList();
                // in turn, so that every API client (the skewed clocks' too) is stopped in a long enough phase
                Workers.Worker victim = api.get(stops++ % api.size());
                // past the lease, by little or by much: a little past it is where a client that misjudges
                // the time (the half-speed clock of the skewed client, were leases judged on it) still believes
                long stopMs = LEASE_MS * 6 / 5 + random.nextInt((int) (LEASE_MS * 4 / 5));
                fault(kind, victim.proc(), () -> {
                    Workers.signal(victim.process().pid(), "STOP");
                    Thread.sleep(stopMs);
                    Workers.signal(victim.process().pid(), "CONT");
                });
            }
            case "server-kill" -> fault(kind, "redis :" + redis.port(), redis::restart);
            case "restart-empty" -> fault(kind, "redis :" + redis.port(), () -> {
                String dataDir = ((List<?>) redis.command("CONFIG", "GET", "dir")).get(1).toString();
                redis.kill();
                deleteAof(Path.of(dataDir));
                redis.restart();
            });
            case "server-stop" -> {
                long stopMs = 1000 + random.nextInt(3000);
                fault(kind, "redis :" + redis.port() + " for " + stopMs + " ms", () -> {
                    redis.pause();
                    Thread.sleep(stopMs);
                    redis.resume();
                });
            }
            case "forced-release" -> {
                String lock = locks.get(random.nextInt(locks.size()));
                fault(kind, lock, () -> operator.getLock(lock).forceUnlock());
            }
            case "partition" -> {
                NetworkPartition p = partition.orElseThrow();
                long cutMs = LEASE_MS * 2 + random.nextInt((int) LEASE_MS);
                fault(kind, "netns client for " + cutMs + " ms", () -> {
                    p.cut();
                    try {
                        Thread.sleep(cutMs);
                    } finally {
                        p.heal();
                    }
                });
            }
            default -> throw new IllegalStateException("fault " + kind + " does not apply here");
        }
    }

    private static void deleteAof(Path dataDir) throws IOException {
        try (var files = Files.walk(dataDir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith("appendonly") || name.endsWith(".aof") || name.endsWith(".rdb")) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    private Workers.Worker pick(List<Workers.Worker> workers) {
        return workers.get(random.nextInt(workers.size()));
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

    // ---- report ----

    private String table(Checker.Verdict verdict, long endMs) {
        List<Event> history = resource.history();
        Map<String, List<Checker.Violation>> byKind = new LinkedHashMap<>();
        Checker checker = new Checker(history, Map.of(), List.of(), LIVENESS_BOUND_MS, WAIT_SLACK_MS, LEASE_MS, endMs);
        List<Checker.Window> windows = checker.windows();
        List<Long> accepted = history.stream().filter(e -> e.kind().equals("WRITE") && e.accepted()).map(Event::atMs).toList();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "seed %d, %.0f s, %d events; %d holds: %s%n%n", options.seed(), endMs / 1000.0,
                history.size(), verdict.holdsPerOutcome().values().stream().mapToInt(Integer::intValue).sum(),
                verdict.holdsPerOutcome()));
        out.append("| fault | injected | slowest recovery (healed -> next accepted write) | violations | documented overlaps |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        for (String kind : KINDS) {
            List<Checker.Window> ofKind = windows.stream().filter(w -> w.kind().equals(kind)).toList();
            long slowest = -1;
            for (Checker.Window w : ofKind) {
                long next = accepted.stream().filter(at -> at > w.toMs()).findFirst().orElse(Long.MAX_VALUE);
                if (next != Long.MAX_VALUE) {
                    slowest = Math.max(slowest, next - w.toMs());
                }
            }
            long violations = verdict.violations().stream().filter(v -> within(v, ofKind)).count();
            long documented = verdict.documented().stream().filter(v -> within(v, ofKind)).count();
            String skipped = ofKind.isEmpty() ? (options.faults().contains(kind) ? "0 (not drawn in this run)" : "0 (not selected)") : Integer.toString(ofKind.size());
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d |%n", kind, skipped,
                    slowest < 0 ? "–" : slowest + " ms", violations, documented));
        }
        Set<String> skewed = resource.history().stream().map(Event::proc).collect(Collectors.toSet());
        long skewedHolds = history.stream().filter(e -> e.kind().equals("WRITE") && e.accepted()
                && (e.proc().equals("oapi3") || e.proc().equals("oapi4"))).count();
        out.append(String.format(Locale.ROOT, "| clock skew (clients oapi3 %s, oapi4 %s, whole single-Redis phase) | %s | – | %d | – |%n",
                new SkewedClock(null, SKEW_MS, FAST_RATE), new SkewedClock(null, -SKEW_MS, SLOW_RATE),
                skewedClockLibrary.isPresent() && skewed.contains("oapi3") ? "2 clients, " + skewedHolds + " writes accepted" : "0 (skipped)",
                verdict.violations().stream().filter(v -> v.message().contains("oapi3") || v.message().contains("oapi4")).count()));
        out.append(String.format(Locale.ROOT, "%nproperties: %s%n", verdict.passed() ? "all held"
                : verdict.violations().size() + " violations: " + verdict.violations().stream()
                .collect(Collectors.groupingBy(Checker.Violation::property, LinkedHashMap::new, Collectors.counting()))));
        out.append(String.format(Locale.ROOT, "documented overlaps %d%s%n", verdict.documented().size(), verdict.documented().stream()
                .map(v -> String.format(Locale.ROOT, "%n  at %.3f s: %s", v.atMs() / 1000.0, v.message())).collect(Collectors.joining())));
        out.append(String.format(Locale.ROOT, "accepted writes %d, counters %s%n", accepted.size(), resource.counters().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()[0] + "/" + e.getValue()[1]).sorted().toList()));
        return out.toString();
    }

    private static boolean within(Checker.Violation v, List<Checker.Window> windows) {
        return windows.stream().anyMatch(w -> v.atMs() >= w.fromMs() && v.atMs() <= w.toMs() + LIVENESS_BOUND_MS);
    }
}
