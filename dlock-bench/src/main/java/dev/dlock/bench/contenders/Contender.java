package dev.dlock.bench.contenders;

import java.util.List;

/**
 * One lock implementation under test (or a reference), connected to the servers it was opened on.
 * Thread-safe: one contender serves every thread of a scenario, as one client would in an
 * application.
 */
public interface Contender extends AutoCloseable {

    /** The lock of this name; cheap (no Redis call), called once per thread and name. */
    BenchLock lock(String name);

    /** The Redis key that holds the lock of this name while it is held (for memory and lease checks). */
    String keyOf(String name);

    @Override
    void close();

    /** How a contender is made from the URIs of the servers of a scenario. */
    @FunctionalInterface
    interface Factory {
        Contender open(List<String> uris, Settings settings);
    }

    /**
     * Settings that differ between scenarios.
     *
     * @param watchdogLeaseMs the lease the library's watchdog keeps renewed (each library's
     *                        default unless a scenario needs renewals to happen during the run)
     */
    public record Settings(long watchdogLeaseMs) {
        public static final Settings DEFAULTS = new Settings(30_000);
    }
}
