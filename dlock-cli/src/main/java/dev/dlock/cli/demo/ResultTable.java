package dev.dlock.cli.demo;

import dev.dlock.cli.common.Durations;
import java.util.List;
import java.util.Locale;

/** The table the demo ends with: one row per mode. */
final class ResultTable {

    private static final String FORMAT = "%-7s %6s %9s %14s %8s %12s %14s %14s%n";

    private ResultTable() {
    }

    static String render(List<ModeResult> results) {
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, FORMAT, "mode", "sold", "oversold", "buyers served", "elapsed",
                "purchases/s", "lock wait p50", "lock wait p99"));
        for (ModeResult result : results) {
            table.append(String.format(Locale.ROOT, FORMAT, result.mode().label(),
                    count(result.sold()), count(result.oversold()), count(result.served()),
                    Durations.format(result.elapsed()), count(Math.round(result.perSecond())),
                    latency(result.lockWaitPercentile(0.50)), latency(result.lockWaitPercentile(0.99))));
        }
        return table.toString();
    }

    static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    /** {@code 0.41 ms}, {@code 6.2 ms}, {@code 1.30 s}; {@code -} when there was no lock. */
    static String latency(long nanos) {
        if (nanos < 0) {
            return "-";
        }
        double millis = nanos / 1e6;
        if (millis < 1) {
            return String.format(Locale.ROOT, "%.2f ms", millis);
        }
        if (millis < 1000) {
            return String.format(Locale.ROOT, "%.1f ms", millis);
        }
        return String.format(Locale.ROOT, "%.2f s", millis / 1000);
    }
}
