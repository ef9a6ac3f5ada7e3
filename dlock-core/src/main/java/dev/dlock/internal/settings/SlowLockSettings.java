package dev.dlock.internal.settings;

import java.time.Duration;

/**
 * The slow-lock warnings of one client: how long a hold or a wait may last before it is logged
 * (WARN, once when it passes the threshold and once when it ends), and whether each acquisition
 * records where it was called from. {@link #OFF}: no warnings, no call sites.
 *
 * @param slowHold           a hold lasting longer is logged; {@link Duration#ZERO} for never
 * @param slowWait           an acquisition waiting longer is logged; {@link Duration#ZERO} for never
 * @param captureAcquireSite whether each acquisition records its caller's stack frame (the first
 *                           one outside dlock) for those warnings
 */
public record SlowLockSettings(Duration slowHold, Duration slowWait, boolean captureAcquireSite) {

    public static final SlowLockSettings OFF = new SlowLockSettings(Duration.ZERO, Duration.ZERO, false);
    /** The shortest threshold accepted: below it, every lock would be slow. */
    public static final Duration MIN_THRESHOLD = Duration.ofMillis(1);
    /** The least and the most time between two checks of every hold and waiter. */
    private static final long MIN_CHECK_NANOS = Duration.ofMillis(10).toNanos();
    private static final long MAX_CHECK_NANOS = Duration.ofSeconds(1).toNanos();

    /** Checks one threshold on its own; {@code option} names it in the message. */
    public static Duration threshold(String option, Duration threshold) {
        if (threshold == null || threshold.compareTo(MIN_THRESHOLD) < 0
                || threshold.compareTo(Validation.MAX_DURATION) > 0) {
            throw new IllegalArgumentException(option + " must be between " + MIN_THRESHOLD.toMillis() + " ms and "
                    + Validation.MAX_DURATION.toDays() + " days, got " + threshold);
        }
        return threshold;
    }

    public boolean warnsOfHolds() {
        return !slowHold.isZero();
    }

    public boolean warnsOfWaits() {
        return !slowWait.isZero();
    }

    public boolean any() {
        return warnsOfHolds() || warnsOfWaits();
    }

    /**
     * How often one check looks at every hold and waiter: a tenth of the shortest threshold, between
     * 10 ms and 1 s, so a warning comes at most about a tenth (or a second) late.
     */
    public long checkPeriodNanos() {
        long shortest = Long.MAX_VALUE;
        if (warnsOfHolds()) {
            shortest = slowHold.toNanos();
        }
        if (warnsOfWaits()) {
            shortest = Math.min(shortest, slowWait.toNanos());
        }
        return Math.max(MIN_CHECK_NANOS, Math.min(MAX_CHECK_NANOS, shortest / 10));
    }

    @Override
    public String toString() {
        return "slowHold=" + (warnsOfHolds() ? slowHold : "off") + ", slowWait=" + (warnsOfWaits() ? slowWait : "off")
                + ", captureAcquireSite=" + captureAcquireSite;
    }
}
