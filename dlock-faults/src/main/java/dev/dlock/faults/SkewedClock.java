package dev.dlock.faults;

import dev.dlock.testing.SkewedClockLibrary;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The wall clock of a client JVM put {@code offsetMs} off and running {@code rate} times as fast as
 * the true one, as on a host whose clock NTP no longer keeps: {@link SkewedClockLibrary}, compiled by
 * the campaign with gcc and preloaded into the JVM, moves CLOCK_REALTIME ({@code System.currentTimeMillis},
 * {@code Instant.now}) only. The monotonic clock ({@code System.nanoTime}) and the timeouts of every
 * wait (sleeps, selector polls, parks) stay true, as they do on such a host. dlock judges leases on
 * the monotonic clock and on Redis's; the campaign checks that a client's wrong wall clock changes
 * nothing. Each acquisition reports the client's wall clock, so the history shows the skew.
 *
 * <p>libfaketime is not used: its rate also shortens or stretches the process's waits, which made a
 * fast client's network thread spin ("Selector.select() returned prematurely") and act late, a fault
 * no real clock has.
 */
record SkewedClock(Path library, long offsetMs, double rate) {

    static final long HOUR_MS = 3_600_000;

    /**
     * Compiles the preload library into {@code dir}, or says in {@code whyNot} why it cannot (no gcc,
     * or not Linux).
     */
    static Optional<Path> compile(Path dir, StringBuilder whyNot) {
        StringBuilder why = new StringBuilder();
        Optional<Path> library = SkewedClockLibrary.compile(dir, why);
        if (library.isEmpty()) {
            whyNot.append("clock skew skipped: ").append(why);
        }
        return library;
    }

    Map<String, String> environment() {
        return SkewedClockLibrary.environment(library, offsetMs, rate);
    }

    /** {@code +1h x1.5}: how the history and the summary name it. */
    String label() {
        String offset = offsetMs % HOUR_MS == 0 ? String.format(Locale.ROOT, "%+dh", offsetMs / HOUR_MS)
                : String.format(Locale.ROOT, "%+dms", offsetMs);
        return offset + " x" + (rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate));
    }

    @Override
    public String toString() {
        return label();
    }
}
