package dev.dlock.cli.demo;

import dev.dlock.micrometer.DlockMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The lock waits as dlock's own meter, {@code dlock.acquire.wait}, recorded them: one row per
 * kind and outcome, with count, p50, p90, p99 and max. The percentiles are estimated from the
 * timer's histogram buckets the way Prometheus's {@code histogram_quantile} does (linearly within
 * the bucket the rank falls in), so they are what a dashboard on the scraped meters would show.
 */
final class LockWaitTable {

    static final String HEADING = "lock waits, from the meter " + DlockMetrics.ACQUIRE_WAIT
            + " (percentiles estimated from its histogram buckets):";
    private static final String FORMAT = "  %-10s %-10s %10s %10s %10s %10s %10s%n";

    private LockWaitTable() {
    }

    /** The heading and table, or an empty string when no lock was acquired (the nolock mode alone). */
    static String render(Collection<Timer> acquireWaits) {
        if (acquireWaits.isEmpty()) {
            return "";
        }
        StringBuilder table = new StringBuilder(HEADING).append(System.lineSeparator());
        table.append(String.format(Locale.ROOT, FORMAT, "kind", "outcome", "count", "p50", "p90", "p99", "max"));
        acquireWaits.stream()
                .sorted(Comparator.comparing((Timer timer) -> tag(timer, "kind")).thenComparing(timer -> tag(timer, "outcome")))
                .forEach(timer -> {
                    HistogramSnapshot snapshot = timer.takeSnapshot();
                    table.append(String.format(Locale.ROOT, FORMAT, tag(timer, "kind"), tag(timer, "outcome"),
                            ResultTable.count(snapshot.count()),
                            ResultTable.latency(percentileNanos(snapshot, 0.50)),
                            ResultTable.latency(percentileNanos(snapshot, 0.90)),
                            ResultTable.latency(percentileNanos(snapshot, 0.99)),
                            ResultTable.latency(Math.round(snapshot.max(TimeUnit.NANOSECONDS)))));
                });
        return table.toString();
    }

    /**
     * The wait below which {@code fraction} of the acquisitions fell, estimated from the cumulative
     * bucket counts; at most the max recorded (when there is one); -1 without a recording.
     */
    static long percentileNanos(HistogramSnapshot snapshot, double fraction) {
        if (snapshot.count() == 0) {
            return -1;
        }
        double max = snapshot.max(TimeUnit.NANOSECONDS);
        double rank = fraction * snapshot.count();
        double lowerBound = 0;
        double countBelow = 0;
        for (CountAtBucket bucket : snapshot.histogramCounts()) {
            double upperBound = bucket.bucket(TimeUnit.NANOSECONDS);
            if (bucket.count() >= rank) {
                double inBucket = bucket.count() - countBelow;
                double estimate = inBucket <= 0 ? upperBound
                        : lowerBound + (upperBound - lowerBound) * (rank - countBelow) / inBucket;
                return Math.round(max > 0 ? Math.min(estimate, max) : estimate);
            }
            lowerBound = upperBound;
            countBelow = bucket.count();
        }
        return Math.round(max); // above the last bucket: the max is the best there is
    }

    private static String tag(Timer timer, String key) {
        String value = timer.getId().getTag(key);
        return value == null ? "-" : value;
    }
}
