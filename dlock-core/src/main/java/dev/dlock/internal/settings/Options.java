package dev.dlock.internal.settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The options a client was built with, null where not given: {@code LockClientBuilder} keeps them,
 * checks each with the {@code check...} methods here as it is set, and hands them over once, to
 * {@link #settings()}, which supplies the defaults and checks the rules between options.
 *
 * @param store the store other than Redis the locks live in, named so in messages ("InMemoryStore",
 *              "PostgresStore"); null for Redis, whose options are the Redis ones here (taken from the
 *              application's {@code RedisStore}, which checked them)
 */
public record Options(String redisUri, List<String> redlockNodes, List<String> clusterNodes, Duration redlockNodeTimeout,
                      String keyPrefix, Duration defaultLease, Duration commandTimeout, Duration waiterTimeout,
                      String clientName, Duration outageTolerance, ReplicaAcks replicaAcks, Duration slowHoldThreshold,
                      Duration slowWaitThreshold, boolean captureAcquireSite, String store) {

    public static List<String> checkRedlockNodes(String... uris) {
        if (uris == null || uris.length < 3) {
            throw new IllegalArgumentException("RedisStore.redlock needs at least 3 independent masters, got "
                    + (uris == null ? "null" : Arrays.toString(uris)) + "; for one Redis use RedisStore.standalone");
        }
        List<String> checked = checkEach("RedisStore.redlock", uris, Validation::redisUri);
        if (checked.stream().map(Validation::redisServer).distinct().count() < checked.size()) {
            throw new IllegalArgumentException("RedisStore.redlock needs distinct servers, got " + Arrays.toString(uris));
        }
        return checked;
    }

    public static List<String> checkClusterNodes(String... uris) {
        if (uris == null || uris.length == 0) {
            throw new IllegalArgumentException("RedisStore.cluster needs at least one node of the cluster, got "
                    + (uris == null ? "null" : "none"));
        }
        return checkEach("RedisStore.cluster", uris, Validation::clusterNodeUri);
    }

    public static Duration checkRedlockNodeTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("nodeTimeout must be at least 1 ms, got " + timeout);
        }
        return timeout;
    }

    public static String checkKeyPrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("keyPrefix must not be null (it may be empty)");
        }
        return prefix;
    }

    public static Duration checkDefaultLease(Duration lease) {
        Validation.leaseMillis("defaultLease", lease);
        if (lease.compareTo(Settings.MIN_WATCHDOG_LEASE) < 0) {
            throw new IllegalArgumentException("defaultLease must be at least " + Settings.MIN_WATCHDOG_LEASE.toMillis()
                    + " ms, got " + lease);
        }
        return lease;
    }

    public static Duration checkCommandTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(Settings.MAX_COMMAND_TIMEOUT) > 0) {
            throw new IllegalArgumentException("commandTimeout must be between 1 ms and "
                    + Settings.MAX_COMMAND_TIMEOUT.toMinutes() + " minutes, got " + timeout);
        }
        return timeout;
    }

    public static Duration checkWaiterTimeout(Duration timeout) {
        if (timeout == null || timeout.compareTo(Settings.MIN_WAITER_TIMEOUT) < 0 || timeout.compareTo(Settings.MAX_WAITER_TIMEOUT) > 0) {
            throw new IllegalArgumentException("waiterTimeout must be between " + Settings.MIN_WAITER_TIMEOUT.toMillis()
                    + " ms and " + Settings.MAX_WAITER_TIMEOUT.toMinutes() + " minutes, got " + timeout);
        }
        return timeout;
    }

    public static String checkClientName(String name) {
        if (name == null || name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("clientName must be non-blank without white space, got '" + name + "'");
        }
        return name;
    }

    public static Duration checkOutageTolerance(Duration tolerance) {
        if (tolerance == null || tolerance.isNegative() || tolerance.compareTo(Settings.MAX_OUTAGE_TOLERANCE) > 0) {
            throw new IllegalArgumentException("outageTolerance must be between 0 and "
                    + Settings.MAX_OUTAGE_TOLERANCE.toDays() + " day, got " + tolerance);
        }
        return tolerance;
    }

    /** The settings, with a default for every option not given; checks the rules between options. */
    public Settings settings() {
        Duration timeout = commandTimeout != null ? commandTimeout : Settings.DEFAULT_COMMAND_TIMEOUT;
        Duration lease = defaultLease != null ? defaultLease : Settings.DEFAULT_LEASE;
        if (timeout.compareTo(lease.dividedBy(3)) >= 0) {
            throw new IllegalArgumentException("commandTimeout " + timeout + " must be shorter than a third of "
                    + "defaultLease " + lease + ", or a renewal could time out after the lease ran out");
        }
        Duration waiting = waiterTimeout != null ? waiterTimeout
                : max(Settings.DEFAULT_WAITER_TIMEOUT, timeout.multipliedBy(2));
        if (waiting.toMillis() * 2 <= timeout.toMillis() * 3) {
            throw new IllegalArgumentException("waiterTimeout " + waiting + " must exceed 1.5 × commandTimeout "
                    + timeout + ", or a waiter's refresh could reach Redis after its deadline");
        }
        // Redis keeps a lock's keys in one Cluster slot by the hash tag {name}: braces in the prefix break it
        if (store == null && keyPrefix != null && (keyPrefix.contains("{") || keyPrefix.contains("}"))) {
            throw new IllegalArgumentException("keyPrefix '" + keyPrefix + "' cannot be used with RedisStore: '{' and "
                    + "'}' would break the hash tag that keeps a lock's keys in one Cluster slot");
        }
        boolean redlock = redlockNodes != null;
        boolean cluster = clusterNodes != null;
        if (replicaAcks != null) {
            replicaAcks.check(redlock, timeout);
        }
        return new Settings(redlock ? redlockNodes : cluster ? clusterNodes
                : List.of(redisUri != null ? redisUri : Settings.DEFAULT_REDIS_URI), redlock, cluster,
                keyPrefix != null ? keyPrefix : Settings.DEFAULT_KEY_PREFIX,
                clientName != null ? clientName : "dlock-" + ProcessHandle.current().pid(),
                lease, timeout, waiting, redlockNodeTimeout != null ? redlockNodeTimeout : Duration.ZERO,
                Settings.MIN_REDLOCK_NODE_TIMEOUT, Settings.TOKEN_FLOOR_TTL, Settings.RENEW_BATCH, Settings.FIRST_RECONNECT_DELAY, Settings.MAX_RECONNECT_DELAY,
                outageTolerance != null ? outageTolerance : Settings.DEFAULT_OUTAGE_TOLERANCE,
                replicaAcks != null ? replicaAcks : ReplicaAcks.NONE,
                new SlowLockSettings(slowHoldThreshold != null ? slowHoldThreshold : Duration.ZERO,
                        slowWaitThreshold != null ? slowWaitThreshold : Duration.ZERO,
                        captureAcquireSite));
    }

    /** Each URL checked; a refusal's message is prefixed with the option's name. */
    private static List<String> checkEach(String option, String[] uris, UnaryOperator<String> check) {
        List<String> checked = new ArrayList<>();
        for (String uri : uris) {
            try {
                checked.add(check.apply(uri));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
            }
        }
        return checked;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
