package dev.dlock.bench;

import dev.dlock.bench.contenders.CliStartup;
import dev.dlock.bench.contenders.Contender;
import dev.dlock.bench.contenders.Contenders;
import dev.dlock.bench.report.Report;
import dev.dlock.bench.report.Results;
import dev.dlock.bench.scenarios.ContendedProcesses;
import dev.dlock.bench.scenarios.LoadScenarios;
import dev.dlock.bench.scenarios.ManyHeldScenario;
import dev.dlock.bench.scenarios.Scenario;
import dev.dlock.bench.scenarios.SingleThreadBenchmark;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs every scenario for every contender, interleaved in rounds on the same freshly started
 * redis-server processes (one for the single-node scenarios, five for Redlock), and rewrites
 * {@code docs/benchmarks.md}.
 *
 * <pre>
 * java -jar dlock-bench/target/dlock-bench.jar [--quick] [--rounds N] [--scenarios a,b,...] [--rtt 500us] [--out FILE]
 *     [--cli-root DIR]
 * </pre>
 *
 * <p>{@code --rtt} puts a {@link DelayRelay} between every contender and every redis-server, adding
 * that round trip (half each way), so that the figures reflect a network instead of loopback.
 * {@code --cli-root} makes the cli-startup scenario run another checkout's {@code ./dlock} and jar.
 */
public final class Main {

    /** How long each part of a run takes. */
    public record Plan(String name, int rounds, int jmhWarmups, Duration jmhWarmup, int jmhIterations, Duration jmhIteration,
                Duration loadWarmup, Duration loadMeasure, int heldLocks, Duration hold, long heldLeaseMs) {

        /** About 12-13 minutes on 2 cores: 4 rounds of ~170 s, then many-held once (~60 s). */
        static final Plan DEFAULT = new Plan("default", 4, 3, Duration.ofSeconds(1), 3, Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(4), 100_000, Duration.ofSeconds(10), 4_500);
        /** About 2 minutes: a smoke test of the harness, too short for figures worth quoting. */
        static final Plan QUICK = new Plan("quick", 2, 2, Duration.ofMillis(500), 2, Duration.ofMillis(500),
                Duration.ofMillis(800), Duration.ofMillis(1500), 20_000, Duration.ofSeconds(4), 3_000);

        /**
         * The measured time of the scenarios run beside {@code contended} without targets of their
         * own (fair, contended-clients): half of {@link #loadMeasure}, to keep the plan's length.
         */
        public Duration sideMeasure() {
            return loadMeasure.dividedBy(2);
        }

        /**
         * The warm-up of the contended-processes scenario: three times {@link #loadWarmup}, since
         * its four fresh JVMs compile the same code each, on the same cores (with the plain
         * warm-up, the measured seconds still included much of their JIT work).
         */
        public Duration processesWarmup() {
            return loadWarmup.multipliedBy(3);
        }

        Plan withRounds(int n) {
            return new Plan(name, n, jmhWarmups, jmhWarmup, jmhIterations, jmhIteration, loadWarmup, loadMeasure,
                    heldLocks, hold, heldLeaseMs);
        }
    }

    static final int PARALLEL_THREADS = 64;
    public static final int CONTENDED_THREADS = 16;
    /** Clients the contended-clients scenario spreads its {@link #CONTENDED_THREADS} threads over. */
    public static final int CONTENDED_CLIENTS = 4;
    /** Permits of the semaphore scenario's semaphore. */
    public static final int SEMAPHORE_PERMITS = 4;
    /** JVMs and threads in each of the contended-processes scenario: {@link #CONTENDED_THREADS} in all. */
    public static final int CONTENDED_PROCESSES = 4;
    public static final int THREADS_PER_PROCESS = CONTENDED_THREADS / CONTENDED_PROCESSES;
    static final int HELD_THREADS = 16;
    public static final int REDLOCK_SERVERS = 5;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        Plan plan = Plan.DEFAULT;
        Set<Scenario> scenarios = EnumSet.allOf(Scenario.class);
        Path out = Path.of("docs", "benchmarks.md");
        Duration rtt = Duration.ZERO;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> plan = Plan.QUICK.withRounds(plan == Plan.DEFAULT ? Plan.QUICK.rounds() : plan.rounds());
                case "--rounds" -> plan = plan.withRounds(Integer.parseInt(args[++i]));
                case "--scenarios" -> {
                    scenarios = EnumSet.noneOf(Scenario.class);
                    for (String id : args[++i].split(",")) {
                        scenarios.add(Scenario.byId(id.trim()));
                    }
                }
                case "--out" -> out = Path.of(args[++i]);
                case "--rtt" -> rtt = DelayRelay.parseRoundTrip(args[++i]);
                case "--cli-root" -> CliStartup.runFrom(Path.of(args[++i]));
                case "--help", "-h" -> {
                    System.out.println(usage());
                    return;
                }
                default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'; try --help");
            }
        }
        System.exit(run(plan, scenarios, out, rtt));
    }

    static String usage() {
        return "usage: java -jar dlock-bench.jar [--quick] [--rounds N] [--scenarios " + Scenario.ids()
                + "] [--rtt 500us] [--out docs/benchmarks.md] [--cli-root DIR]";
    }

    static int run(Plan plan, Set<Scenario> scenarios, Path out, Duration rtt) throws Exception {
        Instant started = Instant.now();
        long startNanos = System.nanoTime();
        List<RedisServer> redlockServers = new ArrayList<>();
        try (RedisServer single = RedisServer.start(); Network network = new Network(rtt)) {
            if (scenarios.contains(Scenario.REDLOCK)) {
                for (int i = 0; i < REDLOCK_SERVERS; i++) {
                    redlockServers.add(RedisServer.start());
                }
            }
            List<Long> pids = new ArrayList<>();
            pids.add(single.pid());
            redlockServers.forEach(server -> pids.add(server.pid()));
            String redisVersion = redisVersion(single);
            log("redis-server %s on %s; redlock on %s", redisVersion, single.uri(),
                    redlockServers.stream().map(RedisServer::uri).toList());
            Network.Facts networkFacts = network.measure(single);
            log("contenders connect to %s; PING p50 %.0f µs, p99 %.0f µs%s", network.uriOf(single),
                    networkFacts.pingP50Micros(), networkFacts.pingP99Micros(),
                    rtt.isZero() ? "" : " (through a relay adding " + rtt.toNanos() / 1000 + " µs)");
            Machine.CpuSnapshot cpuStart = Machine.CpuSnapshot.take(pids);
            double loadBefore = Machine.loadAverage();
            Results results = new Results(plan.rounds());
            Runs runs = new Runs(plan, results, single, redlockServers, network);
            for (int round = 0; round < plan.rounds(); round++) {
                for (Scenario scenario : scenarios) {
                    if (scenario == Scenario.MANY_HELD) {
                        continue;
                    }
                    for (Contenders contender : rotate(scenario.contenders, round)) {
                        runs.run(scenario, contender, round);
                    }
                }
            }
            if (scenarios.contains(Scenario.MANY_HELD)) {
                for (Contenders contender : Scenario.MANY_HELD.contenders) {
                    runs.run(Scenario.MANY_HELD, contender, 0);
                }
            }
            double otherCores = Machine.CpuSnapshot.take(pids).otherCoresSince(cpuStart);
            Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
            Report.Facts facts = new Report.Facts(started, took, plan, redisVersion, loadBefore,
                    Machine.loadAverage(), otherCores, networkFacts);
            Report report = new Report(results, facts, scenarios);
            report.write(out);
            System.out.println(report.summary());
            log("wrote %s in %d s", out, took.toSeconds());
            return 0;
        } finally {
            redlockServers.forEach(RedisServer::close);
        }
    }

    /** The contenders in an order that moves by one each round, so that none always runs first. */
    static <T> List<T> rotate(List<T> items, int round) {
        List<T> rotated = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            rotated.add(items.get((i + round) % items.size()));
        }
        return rotated;
    }

    private static String redisVersion(RedisServer server) {
        String info = String.valueOf(server.command("INFO", "server"));
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "unknown";
    }

    public static void log(String format, Object... args) {
        System.err.printf(Locale.ROOT, "[bench] " + format + "%n", args);
    }

    /** One run of one contender in one scenario, recorded into the results. */
    private static final class Runs {
        private final Plan plan;
        private final Results results;
        private final RedisServer single;
        private final List<RedisServer> redlock;
        private final Network network;

        Runs(Plan plan, Results results, RedisServer single, List<RedisServer> redlock, Network network) {
            this.plan = plan;
            this.results = results;
            this.single = single;
            this.redlock = redlock;
            this.network = network;
        }

        void run(Scenario scenario, Contenders contender, int round) {
            String unavailable = contender.unavailableReason().orElse(null);
            if (unavailable != null) {
                results.missing(scenario, contender, unavailable);
                return;
            }
            List<RedisServer> servers = scenario == Scenario.REDLOCK ? redlock : List.of(single);
            servers.forEach(RedisServer::flushAll);
            List<String> uris = servers.stream().map(network::uriOf).toList();
            long start = System.nanoTime();
            try {
                Map<Metric, Double> figures = switch (scenario) {
                    case UNCONTENDED, REDLOCK -> jmh(contender, uris, "bench:" + scenario.id);
                    case PARALLEL -> inProcess(contender, uris, Contender.Settings.DEFAULTS, 1,
                            open -> LoadScenarios.parallel(open.get(0), PARALLEL_THREADS, plan.loadWarmup(),
                                    plan.loadMeasure()));
                    case CONTENDED -> inProcess(contender, uris, Contender.Settings.DEFAULTS, 1,
                            open -> contended(open, "bench:" + scenario.id, plan.loadMeasure()));
                    case FAIR -> inProcess(contender, uris, Contender.Settings.DEFAULTS, 1,
                            open -> contended(open, "bench:" + scenario.id, plan.sideMeasure()));
                    case CONTENDED_CLIENTS -> inProcess(contender, uris, Contender.Settings.DEFAULTS,
                            CONTENDED_CLIENTS, open -> contended(open, "bench:" + scenario.id, plan.loadMeasure()));
                    case CONTENDED_PROCESSES -> ContendedProcesses.run(contender, uris, "bench:" + scenario.id,
                            CONTENDED_PROCESSES, THREADS_PER_PROCESS, plan.processesWarmup(), plan.loadMeasure());
                    case CLI_STARTUP -> CliStartup.run(contender, uris.get(0));
                    case SEMAPHORE -> inProcess(contender, uris, Contender.Settings.DEFAULTS, 1,
                            open -> LoadScenarios.contended(i -> open.get(0).lock("bench:" + scenario.id),
                                    CONTENDED_THREADS, SEMAPHORE_PERMITS, plan.loadWarmup(), plan.sideMeasure()));
                    case MANY_HELD -> inProcess(contender, uris, new Contender.Settings(plan.heldLeaseMs()), 1,
                            open -> ManyHeldScenario.run(open.get(0), single, plan.heldLocks(), HELD_THREADS,
                                    plan.hold()));
                };
                results.record(scenario, contender, round, figures);
                log("%s %-17s %-15s %s (%.1f s)", when(scenario, round), scenario.id, contender.label(),
                        Report.brief(scenario, figures), (System.nanoTime() - start) / 1e9);
            } catch (Exception e) {
                results.missing(scenario, contender, "failed: " + e);
                log("%s %-17s %-15s FAILED: %s", when(scenario, round), scenario.id, contender.label(), e);
                e.printStackTrace();
            }
        }

        private String when(Scenario scenario, int round) {
            return scenario == Scenario.MANY_HELD ? "once     " : "round " + (round + 1) + "/" + plan.rounds();
        }

        /** The contended load on one lock, thread {@code i} on the lock from client {@code i % clients}. */
        private Map<Metric, Double> contended(List<Contender> clients, String lockName, Duration measure) {
            return LoadScenarios.contended(i -> clients.get(i % clients.size()).lock(lockName), CONTENDED_THREADS,
                    plan.loadWarmup(), measure);
        }

        private interface Load {
            Map<Metric, Double> run(List<Contender> clients) throws Exception;
        }

        /** Opens {@code clients} separate instances of the contender (each its own connections), runs, closes them. */
        private static Map<Metric, Double> inProcess(Contenders contender, List<String> uris,
                                                     Contender.Settings settings, int clients, Load load)
                throws Exception {
            System.gc();
            List<Contender> open = new ArrayList<>(clients);
            try {
                for (int i = 0; i < clients; i++) {
                    open.add(contender.open(uris, settings));
                }
                return load.run(open);
            } finally {
                for (Contender client : open) {
                    try {
                        client.close();
                    } catch (RuntimeException e) {
                        log("closing a %s client failed: %s", contender.label(), e);
                    }
                }
            }
        }

        private Map<Metric, Double> jmh(Contenders contender, List<String> uris, String lockName)
                throws RunnerException, IOException {
            Path cpuFile = Files.createTempFile("dlock-bench-cpu-", ".txt");
            try {
                Map<Metric, Double> figures = jmh(contender, uris, lockName, cpuFile);
                // server CPU µs and pairs of the measured iterations, written by the fork
                String[] cpu = Files.readString(cpuFile).trim().split(" ");
                if (cpu.length == 2 && Long.parseLong(cpu[1]) > 0) {
                    figures.put(Metric.REDIS_CPU, Double.parseDouble(cpu[0]) / Long.parseLong(cpu[1]));
                }
                return figures;
            } finally {
                Files.deleteIfExists(cpuFile);
            }
        }

        private Map<Metric, Double> jmh(Contenders contender, List<String> uris, String lockName, Path cpuFile)
                throws RunnerException {
            Options options = new OptionsBuilder()
                    .include(SingleThreadBenchmark.class.getName() + ".acquireRelease")
                    .param("contender", contender.name())
                    .param("uris", String.join(",", uris))
                    .param("lockName", lockName)
                    .param("cpuFile", cpuFile.toString())
                    .warmupIterations(plan.jmhWarmups())
                    .warmupTime(TimeValue.milliseconds(plan.jmhWarmup().toMillis()))
                    .measurementIterations(plan.jmhIterations())
                    .measurementTime(TimeValue.milliseconds(plan.jmhIteration().toMillis()))
                    .forks(1)
                    .jvmArgsAppend("-Xms512m", "-Xmx512m")
                    .shouldFailOnError(true)
                    .verbosity(VerboseMode.SILENT)
                    .build();
            RunResult run = new Runner(options).runSingle();
            Statistics stats = run.getPrimaryResult().getStatistics();
            Map<Metric, Double> figures = new EnumMap<>(Metric.class);
            figures.put(Metric.OPS, TimeUnit.SECONDS.toMicros(1) / stats.getMean());
            figures.put(Metric.P50, stats.getPercentile(50));
            figures.put(Metric.P99, stats.getPercentile(99));
            figures.put(Metric.P999, stats.getPercentile(99.9));
            return figures;
        }
    }
}
