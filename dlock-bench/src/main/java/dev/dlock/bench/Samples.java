package dev.dlock.bench;

import java.util.Arrays;

/** A growable array of nanosecond samples, recorded by one thread; merged and sorted for percentiles. */
public final class Samples {

    private long[] values = new long[1 << 14];
    private int size;

    public void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    public int size() {
        return size;
    }

    public long get(int index) {
        return values[index];
    }

    /** All samples of all parts, sorted. */
    public static long[] sorted(Iterable<Samples> parts) {
        int total = 0;
        for (Samples part : parts) {
            total += part.size;
        }
        long[] all = new long[total];
        int at = 0;
        for (Samples part : parts) {
            System.arraycopy(part.values, 0, all, at, part.size);
            at += part.size;
        }
        Arrays.sort(all);
        return all;
    }

    /** Nearest-rank percentile of sorted samples, in microseconds; NaN when there are none. */
    public static double percentileMicros(long[] sorted, double percentile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1000.0;
    }
}
