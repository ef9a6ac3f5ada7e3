package dev.dlock.internal.settings;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** Argument checks shared by the API; each message names the bad value. */
public final class Validation {

    /**
     * The longest lease or bounded wait dlock accepts: a longer lease is almost surely a unit mistake;
     * a longer wait is no bound at all ({@link #NO_BOUND}).
     */
    public static final Duration MAX_DURATION = Duration.ofDays(365);
    /** The wait of an acquire without bound, as the acquire loop takes it. */
    public static final long NO_BOUND = -1;
    private static final Pattern REDIS_URL = Pattern.compile("^(redis|rediss|redis-socket|redis-sentinel|rediss-sentinel)://.+");
    private static final Pattern SENTINEL_HOST = Pattern.compile("[^:,/@?]+(:[0-9]{1,5})?");
    private static final String EXPECTED_URL = "; expected redis://[user:password@]host:port[/db], rediss://... for TLS, or "
            + "redis-sentinel://[password@]host:port[,host:port...][/db]?sentinelMasterId=NAME (or ...#NAME)";
    private static final int DEFAULT_REDIS_PORT = 6379;

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

    /**
     * A wait given as a Duration: zero or more; one longer than {@link #MAX_DURATION} waits without
     * bound, as {@code Lock.tryLock(Long.MAX_VALUE, NANOSECONDS)} does on any {@code Lock}.
     *
     * @return the wait in nanos, or {@link #NO_BOUND}
     */
    public static long waitNanos(Duration wait) {
        if (wait == null) {
            throw new IllegalArgumentException("wait must not be null");
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative, got " + wait);
        }
        return wait.compareTo(MAX_DURATION) > 0 ? NO_BOUND : wait.toNanos();
    }

    /** A minimum hold ("hold at least"): zero or more, at most {@link #MAX_DURATION}. */
    public static long minimumHoldNanos(Duration minimumHold) {
        if (minimumHold == null) {
            throw new IllegalArgumentException("minimum hold must not be null");
        }
        if (minimumHold.isNegative()) {
            throw new IllegalArgumentException("minimum hold must not be negative, got " + minimumHold);
        }
        if (minimumHold.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("minimum hold must be at most " + MAX_DURATION.toDays() + " days, got "
                    + minimumHold);
        }
        return minimumHold.toNanos();
    }

    /**
     * The {@code Lock.tryLock(time, unit)} form: zero or less is one attempt; more than
     * {@link #MAX_DURATION} (up to {@code Long.MAX_VALUE} of any unit) waits without bound.
     *
     * @return the wait in nanos, or {@link #NO_BOUND}
     */
    public static long waitNanos(long time, TimeUnit unit) {
        if (unit == null) {
            throw new IllegalArgumentException("time unit must not be null");
        }
        if (time <= 0) {
            return 0;
        }
        return unit.toDays(time) > MAX_DURATION.toDays() ? NO_BOUND : waitNanos(Duration.ofNanos(unit.toNanos(time)));
    }

    /** The most permits a semaphore may have: each acquire and release reads every permit held. */
    public static final int MAX_PERMITS = 10_000;

    public static int permits(int permits) {
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be from 1 to " + MAX_PERMITS + ", got " + permits);
        }
        return permits;
    }

    /** The longest lock name, in characters: a name is part of every key and message of its lock. */
    public static final int MAX_NAME_LENGTH = 1024;

    public static String lockName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank, got '" + name + "'");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_NAME_LENGTH + " characters, got " + name.length()
                    + " characters starting '" + name.substring(0, 32) + "...'");
        }
        return name;
    }

    /**
     * A Redis URL, or an exception whose message starts with the quoted value (so that a caller
     * can put where it came from in front). Refuses what the client library would misread rather
     * than reject: without a scheme it fails obscurely, and a port that is not a number becomes
     * part of a host name that DNS then cannot find.
     */
    public static String redisUri(String uri) {
        if (uri == null || !REDIS_URL.matcher(uri).matches()) {
            throw new IllegalArgumentException("'" + uri + "' is not a Redis URL" + EXPECTED_URL);
        }
        if (uri.startsWith("redis-sentinel://") || uri.startsWith("rediss-sentinel://")) {
            checkSentinelUri(uri);
        } else if (!uri.startsWith("redis-socket://")) {
            try {
                if (new URI(uri).getHost() == null) {
                    throw new IllegalArgumentException("'" + uri + "' is not a Redis URL: no host, or a port that is "
                            + "not a number" + EXPECTED_URL);
                }
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("'" + uri + "' is not a Redis URL: " + e.getMessage() + EXPECTED_URL, e);
            }
        }
        return uri;
    }

    /**
     * A node of a Redis Cluster: a {@code redis://} or {@code rediss://} URL as {@link #redisUri}
     * takes it (a cluster is found through its nodes, not through sentinels or a socket).
     */
    public static String clusterNodeUri(String uri) {
        redisUri(uri);
        if (!uri.startsWith("redis://") && !uri.startsWith("rediss://")) {
            throw new IllegalArgumentException("'" + uri + "' is not the URL of a cluster node: expected "
                    + "redis://[[user]:password@]host[:port] or rediss://...");
        }
        return uri;
    }

    /**
     * A Sentinel URL: every sentinel is host[:port], and the master's name is given, as
     * {@code ?sentinelMasterId=NAME} or in Lettuce's own form {@code #NAME}.
     */
    private static void checkSentinelUri(String uri) {
        String rest = uri.substring(uri.indexOf("://") + 3);
        int at = rest.lastIndexOf('@', endOfServers(rest));
        String afterCredentials = at < 0 ? rest : rest.substring(at + 1);
        int end = afterCredentials.length();
        for (char stop : new char[] {'/', '?', '#'}) {
            int index = afterCredentials.indexOf(stop);
            if (index >= 0) {
                end = Math.min(end, index);
            }
        }
        for (String sentinel : afterCredentials.substring(0, end).split(",", -1)) {
            if (!SENTINEL_HOST.matcher(sentinel).matches()) {
                throw new IllegalArgumentException("'" + uri + "' is not a Redis URL: sentinel '" + sentinel
                        + "' is not host[:port]" + EXPECTED_URL);
            }
        }
        int hash = afterCredentials.indexOf('#');
        boolean namedByFragment = hash >= 0 && hash < afterCredentials.length() - 1;
        if (!afterCredentials.contains("sentinelMasterId=") && !namedByFragment) {
            throw new IllegalArgumentException("'" + uri + "' is not a Redis URL: a Sentinel URL needs "
                    + "?sentinelMasterId=NAME or #NAME (the master's name in the sentinels)" + EXPECTED_URL);
        }
    }

    /** Where the servers (and credentials) of a URL's rest after the scheme end: at its query or fragment. */
    private static int endOfServers(String rest) {
        int end = rest.length();
        for (char stop : new char[] {'?', '#'}) {
            int index = rest.indexOf(stop);
            if (index >= 0) {
                end = Math.min(end, index);
            }
        }
        return end;
    }

    /** The server a checked Redis URL points at ({@code host:port}, or the socket path), to tell servers apart. */
    public static String redisServer(String checkedUri) {
        if (checkedUri.contains("-sentinel://")) {
            String rest = checkedUri.substring(checkedUri.indexOf("://") + 3);
            rest = rest.substring(rest.lastIndexOf('@', endOfServers(rest)) + 1);
            return "sentinels " + rest.split("[/?#]", 2)[0].toLowerCase(java.util.Locale.ROOT);
        }
        URI parsed = URI.create(checkedUri);
        if (checkedUri.startsWith("redis-socket://")) {
            return parsed.getPath();
        }
        return parsed.getHost().toLowerCase(java.util.Locale.ROOT) + ":"
                + (parsed.getPort() < 0 ? DEFAULT_REDIS_PORT : parsed.getPort());
    }

    /** The message for a URL the client library refused although it passed {@link #redisUri}. */
    public static String unreadableRedisUri(String uri, String reason) {
        return "'" + uri + "' is not a Redis URL: " + reason + EXPECTED_URL;
    }
}
