package dev.dlock.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The two gauges of one registry, shared by every {@link DlockMetrics} on it: a registry keeps the
 * first gauge registered under a name, so a second client's {@code DlockMetrics} with gauges of
 * its own would go unseen. Each registry's values live as long as the registry does.
 */
final class SharedGauges {

    private static final Map<MeterRegistry, SharedGauges> BY_REGISTRY = new WeakHashMap<>();

    /** Holds of every client using this registry. */
    final AtomicLong held = new AtomicLong();
    /** Waiting acquisitions of every client using this registry. */
    final AtomicLong waiters = new AtomicLong();

    private SharedGauges() {
    }

    static synchronized SharedGauges of(MeterRegistry registry) {
        SharedGauges gauges = BY_REGISTRY.get(registry);
        if (gauges == null) {
            gauges = new SharedGauges();
            Gauge.builder(DlockMetrics.LOCKS_HELD, gauges.held, AtomicLong::get)
                    .description("dlock holds now (every client on this registry)").register(registry);
            Gauge.builder(DlockMetrics.WAITERS, gauges.waiters, AtomicLong::get)
                    .description("dlock acquisitions waiting now (threads and handles)").register(registry);
            BY_REGISTRY.put(registry, gauges);
        }
        return gauges;
    }
}
