package dev.dlock.cli.demo;

import java.time.Duration;
import java.util.Arrays;

/**
 * What one run of the sale did.
 *
 * @param sold        orders recorded in the store (Redis or PostgreSQL)
 * @param served      buyers who got an answer (a unit or "sold out")
 * @param lockWaits   each buyer's wait for the lock in nanoseconds; empty without the lock
 */
record ModeResult(Mode mode, int stock, long sold, long served, Duration elapsed, long[] lockWaits) {

    long oversold() {
        return Math.max(0, sold - stock);
    }

    double perSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds > 0 ? served / seconds : 0;
    }

    /** The wait below which {@code fraction} of buyers got the lock (nearest rank); -1 without the lock. */
    long lockWaitPercentile(double fraction) {
        if (lockWaits.length == 0) {
            return -1;
        }
        long[] sorted = lockWaits.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
