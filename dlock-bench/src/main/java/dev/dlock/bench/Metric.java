package dev.dlock.bench;

/** A figure a scenario reports, with its unit and how many decimals it is shown with. */
public enum Metric {
    OPS("ops/s", "pairs/s", 0),
    ACQUISITIONS("acquisitions/s", "/s", 0),
    P50("p50", "µs", 0),
    P99("p99", "µs", 0),
    P999("p99.9", "µs", 0),
    /** CPU time of the redis-server processes of the scenario per acquire+release pair ({@link ServerCpu}). */
    REDIS_CPU("Redis CPU per pair", "µs", 1),
    THREAD_MIN("per-thread min", "acq.", 0),
    THREAD_MAX("per-thread max", "acq.", 0),
    JAIN("Jain's index", "", 3),
    WAIT_P50("wait p50", "µs", 0),
    WAIT_P99("wait p99", "µs", 0),
    HANDOFF_P50("handoff p50", "µs", 0),
    HANDOFF_P99("handoff p99", "µs", 0),
    SAME_THREAD("same-thread handoffs", "%", 1),
    VIOLATIONS("exclusion violations", "", 0),
    ACQUIRE_RATE("acquire rate", "locks/s", 0),
    REDIS_BYTES("Redis memory", "B/lock", 0),
    HEAP_BYTES("client heap", "B/lock", 0),
    MIN_LEASE_LEFT("lowest lease left", "ms", 0),
    LOST("locks lost", "", 0),
    WALL_P50("wall time p50", "ms", 0),
    WALL_MIN("wall time min", "ms", 0),
    WALL_MAX("wall time max", "ms", 0),
    /** {@link dev.dlock.bench.contenders.CliStartup#AT_ONCE} runs started together: until the last of them exits, median of the rounds' tries. */
    WALL_AT_ONCE("20 at once: last exit", "ms", 0),
    /** The same: the median run's wall time within the batch. */
    WALL_AT_ONCE_P50("20 at once: p50", "ms", 0),
    /** The same: runs of the batch that did not exit 0 (a connect timed out on the loaded machine), the median batch's. */
    WALL_AT_ONCE_FAILED("20 at once: failed runs", "", 0);

    public final String title;
    public final String unit;
    public final int decimals;

    Metric(String title, String unit, int decimals) {
        this.title = title;
        this.unit = unit;
        this.decimals = decimals;
    }
}
