package dev.dlock.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Argument checks shared by the API; each message names the bad value. */
public final class Validation {

    /** The longest lease or wait dlock accepts; anything longer is almost surely a unit mistake. */
    public static final Duration MAX_DURATION = Duration.ofDays(365);

    private Validation() {
    }

    public static long leaseMillis(String what, Duration lease) {
        if (lease == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + lease);
        }
        if (lease.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_DURATION.toDays() + " days, got " + lease);
        }
        if (lease.toMillis() < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms (Redis leases have millisecond precision), got "
                    + lease);
        }
        return lease.toMillis();
    }

    public static long waitNanos(Duration wait) {
        if (wait == null) {
            throw new IllegalArgumentException("wait must not be null");
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, got " + wait);
        }
        if (wait.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("wait must be at most " + MAX_DURATION.toDays()
                    + " days (use lock() to wait without bound), got " + wait);
        }
        return wait.toNanos();
    }

    /** The {@code Lock.tryLock(time, unit)} form: amounts too large for a Duration are rejected too. */
    public static long waitNanos(long time, TimeUnit unit) {
        if (unit.toDays(time) > MAX_DURATION.toDays()) {
            throw new IllegalArgumentException("wait must be at most " + MAX_DURATION.toDays()
                    + " days (use lock() to wait without bound), got " + time + " " + unit);
        }
        return waitNanos(Duration.ofNanos(unit.toNanos(time)));
    }

    public static String lockName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank, got '" + name + "'");
        }
        if (name.length() > 1024) {
            throw new IllegalArgumentException("lock name must be at most 1024 characters, got " + name.length()
                    + " characters starting '" + name.substring(0, 32) + "...'");
        }
        return name;
    }
}
