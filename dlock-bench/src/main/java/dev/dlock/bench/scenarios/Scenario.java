package dev.dlock.bench.scenarios;

import dev.dlock.bench.Main;
import dev.dlock.bench.Metric;
import dev.dlock.bench.contenders.CliStartup;
import dev.dlock.bench.contenders.Contenders;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The benchmark's scenarios, each with the contenders it runs and the figures it reports. */
public enum Scenario {
    UNCONTENDED("uncontended", "1 thread, 1 key, acquire+release pairs (JMH, sample mode)",
            List.of(Contenders.RTT, Contenders.FLOOR, Contenders.DLOCK, Contenders.REDISSON),
            List.of(Metric.OPS, Metric.P50, Metric.P99, Metric.P999, Metric.REDIS_CPU)),
    PARALLEL("parallel", "64 threads, a key each, acquire+release pairs",
            List.of(Contenders.FLOOR, Contenders.DLOCK, Contenders.REDISSON),
            List.of(Metric.OPS, Metric.P50, Metric.P99)),
    CONTENDED("contended", "16 threads, 1 key, empty critical section",
            List.of(Contenders.DLOCK, Contenders.REDISSON), Metrics.CONTENDED),
    /** The contended load on the fair lock of each library: the handoff to the first in line. */
    FAIR("fair", "16 threads, 1 key, empty critical section, on the fair lock",
            List.of(Contenders.DLOCK_FAIR, Contenders.REDISSON_FAIR), Metrics.CONTENDED),
    /** The contended load with the waiters spread over clients, as waiters in different processes would be. */
    CONTENDED_CLIENTS("contended-clients", "16 threads spread round-robin over " + Main.CONTENDED_CLIENTS
            + " clients of the library, 1 key, empty critical section",
            List.of(Contenders.DLOCK, Contenders.REDISSON, Contenders.HANDOFF_FLOOR), Metrics.CONTENDED),
    /** The contended load with the waiters in separate JVMs, one client each ({@link ContendedProcesses}). */
    CONTENDED_PROCESSES("contended-processes", Main.CONTENDED_PROCESSES + " JVMs of " + Main.THREADS_PER_PROCESS
            + " threads (one client each), started by the run, 1 key, empty critical section",
            List.of(Contenders.DLOCK, Contenders.REDISSON, Contenders.HANDOFF_FLOOR), Metrics.CONTENDED),
    REDLOCK("redlock", "1 thread, 5 servers, acquire+release pairs (JMH, sample mode)",
            List.of(Contenders.QUORUM_FLOOR, Contenders.FENCED_QUORUM_FLOOR, Contenders.DLOCK_REDLOCK,
                    Contenders.REDISSON_REDLOCK),
            List.of(Metric.OPS, Metric.P50, Metric.P99, Metric.P999, Metric.REDIS_CPU)),
    /** 16 threads on one semaphore of 4 permits: acquisitions while 4 hold and 12 wait. */
    SEMAPHORE("semaphore", Main.CONTENDED_THREADS + " threads, 1 semaphore of " + Main.SEMAPHORE_PERMITS
            + " permits, empty critical section",
            List.of(Contenders.DLOCK_SEMAPHORE, Contenders.REDISSON_SEMAPHORE),
            List.of(Metric.ACQUISITIONS, Metric.THREAD_MIN, Metric.THREAD_MAX, Metric.JAIN, Metric.WAIT_P50,
                    Metric.WAIT_P99, Metric.VIOLATIONS)),
    MANY_HELD("many-held", "locks held at once by one client (16 threads), renewed by the watchdog",
            List.of(Contenders.DLOCK, Contenders.REDISSON),
            List.of(Metric.ACQUIRE_RATE, Metric.REDIS_BYTES, Metric.HEAP_BYTES, Metric.MIN_LEASE_LEFT, Metric.LOST)),
    /** The dlock command's start-up: one short command, from process start to exit ({@link CliStartup}). */
    CLI_STARTUP("cli-startup", "`dlock status NAME` on a free lock, process start to exit, median of "
            + CliStartup.RUNS + " runs per round; and " + CliStartup.AT_ONCE + " started at once (a cron minute "
            + "on many hosts' worth of JVMs on this machine), median of " + CliStartup.BATCHES + " batches",
            List.of(Contenders.CLI_JAR, Contenders.CLI_LAUNCHER),
            List.of(Metric.WALL_P50, Metric.WALL_MIN, Metric.WALL_MAX, Metric.WALL_AT_ONCE, Metric.WALL_AT_ONCE_P50,
                    Metric.WALL_AT_ONCE_FAILED));

    public final String id;
    public final String description;
    public final List<Contenders> contenders;
    public final List<Metric> metrics;

    Scenario(String id, String description, List<Contenders> contenders, List<Metric> metrics) {
        this.id = id;
        this.description = description;
        this.contenders = contenders;
        this.metrics = metrics;
    }

    public static Scenario byId(String id) {
        for (Scenario scenario : values()) {
            if (scenario.id.equals(id)) {
                return scenario;
            }
        }
        throw new IllegalArgumentException("no scenario '" + id + "'; known: " + ids());
    }

    /** Every scenario's id, comma-separated, in the order they run. */
    public static String ids() {
        return Arrays.stream(values()).map(scenario -> scenario.id).collect(Collectors.joining(","));
    }

    /** Metric lists shared by several scenarios (an enum cannot refer to its own static fields). */
    private static final class Metrics {
        static final List<Metric> CONTENDED = List.of(Metric.ACQUISITIONS, Metric.THREAD_MIN, Metric.THREAD_MAX,
                Metric.JAIN, Metric.WAIT_P50, Metric.WAIT_P99, Metric.HANDOFF_P50, Metric.HANDOFF_P99,
                Metric.SAME_THREAD, Metric.VIOLATIONS);
    }
}
