package dev.dlock.cli.common;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations as people type them ({@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
 * {@code 1d}, combined as {@code 1m30s}) or as ISO-8601 ({@code PT10S}), and writes them back
 * short. A number without a unit is refused, zero aside: a lease typed as {@code 500} could mean
 * milliseconds or seconds, and guessing wrong holds a lock 1000 times too long.
 */
public final class Durations implements ITypeConverter<Duration> {

    static final String EXAMPLES = "e.g. 500ms, 1.5s, 10s, 2m, 1h, 1m30s or PT10S";
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
    private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h|d))+");
    private static final Pattern SECONDS = Pattern.compile("\\d+(?:\\.\\d+)?|\\.\\d+");

    @Override
    public Duration convert(String text) {
        return parse(text);
    }

    /**
     * @throws TypeConversionException naming the value when it is not a duration or is negative
     */
    public static Duration parse(String text) {
        String value = text.trim();
        if (value.isEmpty()) {
            throw new TypeConversionException("'" + text + "' is not a duration (" + EXAMPLES + ")");
        }
        if (value.startsWith("-")) {
            throw new TypeConversionException("'" + text + "' is negative; a duration is zero or more (" + EXAMPLES + ")");
        }
        if (value.toUpperCase(Locale.ROOT).startsWith("PT") || value.toUpperCase(Locale.ROOT).startsWith("P")) {
            return parseIso(text, value);
        }
        String lower = value.toLowerCase(Locale.ROOT);
        if (lower.matches("0+")) {
            return Duration.ZERO; // zero needs no unit: "--wait 0" is one attempt, as in flock -w 0
        }
        if (lower.matches("\\d+")) {
            throw new TypeConversionException("'" + text + "' has no unit: write " + lower + "s or " + lower
                    + "ms (" + EXAMPLES + ")");
        }
        if (!WHOLE.matcher(lower).matches()) {
            throw new TypeConversionException("'" + text + "' is not a duration (" + EXAMPLES + ")");
        }
        Duration total = Duration.ZERO;
        Matcher part = PART.matcher(lower);
        try {
            while (part.find()) {
                long unitNanos = switch (part.group(2)) {
                    case "ms" -> 1_000_000L;
                    case "s" -> 1_000_000_000L;
                    case "m" -> 60_000_000_000L;
                    case "h" -> 3_600_000_000_000L;
                    default -> 86_400_000_000_000L;
                };
                total = total.plus(nanos(new BigDecimal(part.group(1)), unitNanos));
            }
        } catch (ArithmeticException | NumberFormatException e) {
            throw new TypeConversionException("'" + text + "' is too long a duration");
        }
        return total;
    }

    /** {@code amount} units of {@code unitNanos}, to the nanosecond (a fraction of a nanosecond is dropped). */
    private static Duration nanos(BigDecimal amount, long unitNanos) {
        return Duration.ofNanos(amount.multiply(BigDecimal.valueOf(unitNanos)).toBigInteger().longValueExact());
    }

    /**
     * flock's {@code -w SECONDS}: a bare number is seconds, fractions allowed ({@code 0.5}, {@code 1.5});
     * with a unit, any duration {@link #parse} reads.
     */
    public static final class Seconds implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            String value = text.trim();
            if (!SECONDS.matcher(value).matches()) {
                return parse(text);
            }
            try {
                return nanos(new BigDecimal(value), 1_000_000_000L);
            } catch (ArithmeticException e) {
                throw new TypeConversionException("'" + text + "' is too long a duration");
            }
        }
    }

    private static Duration parseIso(String text, String value) {
        try {
            Duration duration = Duration.parse(value);
            if (duration.isNegative()) {
                throw new TypeConversionException("'" + text + "' is negative; a duration is zero or more ("
                        + EXAMPLES + ")");
            }
            return duration;
        } catch (DateTimeParseException e) {
            throw new TypeConversionException("'" + text + "' is not a duration (" + EXAMPLES + ")");
        }
    }

    /** Short and readable: {@code 850 ms}, {@code 4.2 s}, {@code 3m 05s}, {@code 2h 10m}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = duration.toSeconds();
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm %02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh %02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
