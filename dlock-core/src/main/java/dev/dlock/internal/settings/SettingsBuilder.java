package dev.dlock.internal.settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Collects and checks a client's {@link Settings}; each setter names the bad value and may be
 * called once. {@code LockClientBuilder} is its public face.
 */
public final class SettingsBuilder {
    private String redisUri;
    private List<String> redlockNodes;
    private List<String> clusterNodes;
    private Duration redlockNodeTimeout;
    private String keyPrefix;
    private Duration defaultLease;
    private Duration commandTimeout;
    private Duration waiterTimeout;
    private String clientName;
    private Duration outageTolerance;
    private ReplicaAcks replicaAcks;
    private Duration slowHoldThreshold;
    private Duration slowWaitThreshold;
    private Boolean captureAcquireSite;
    private String store;

    public SettingsBuilder redisUri(String uri) {
        requireUnset(redisUri, "redisUri");
        this.redisUri = Validation.redisUri(uri);
        return this;
    }

    public SettingsBuilder redlockNodes(String... uris) {
        requireUnset(redlockNodes, "redlockNodes");
        if (uris == null || uris.length < 3) {
            throw new IllegalArgumentException("redlockNodes needs at least 3 independent masters, got "
                    + (uris == null ? "null" : Arrays.toString(uris)) + "; for one Redis use redisUri");
        }
        List<String> checked = new ArrayList<>();
        for (String uri : uris) {
            try {
                checked.add(Validation.redisUri(uri));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("redlockNodes: " + e.getMessage(), e);
            }
        }
        if (checked.stream().map(Validation::redisServer).distinct().count() < checked.size()) {
            throw new IllegalArgumentException("redlockNodes must be distinct servers, got " + Arrays.toString(uris));
        }
        this.redlockNodes = checked;
        return this;
    }

    public SettingsBuilder clusterNodes(String... uris) {
        requireUnset(clusterNodes, "clusterNodes");
        if (uris == null || uris.length == 0) {
            throw new IllegalArgumentException("clusterNodes needs at least one node of the cluster, got "
                    + (uris == null ? "null" : "none"));
        }
        List<String> checked = new ArrayList<>();
        for (String uri : uris) {
            try {
                checked.add(Validation.clusterNodeUri(uri));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("clusterNodes: " + e.getMessage(), e);
            }
        }
        this.clusterNodes = checked;
        return this;
    }

    public SettingsBuilder redlockNodeTimeout(Duration timeout) {
        requireUnset(redlockNodeTimeout, "redlockNodeTimeout");
        if (timeout == null || timeout.isNegative() || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("redlockNodeTimeout must be at least 1 ms, got " + timeout);
        }
        this.redlockNodeTimeout = timeout;
        return this;
    }

    public SettingsBuilder keyPrefix(String prefix) {
        requireUnset(keyPrefix, "keyPrefix");
        if (prefix == null || prefix.contains("{") || prefix.contains("}")) {
            throw new IllegalArgumentException("keyPrefix must be non-null without '{' or '}' (they would break "
                    + "the lock's hash tag), got '" + prefix + "'");
        }
        this.keyPrefix = prefix;
        return this;
    }

    public SettingsBuilder defaultLease(Duration lease) {
        requireUnset(defaultLease, "defaultLease");
        Validation.leaseMillis("defaultLease", lease);
        if (lease.compareTo(Settings.MIN_WATCHDOG_LEASE) < 0) {
            throw new IllegalArgumentException("defaultLease must be at least " + Settings.MIN_WATCHDOG_LEASE.toMillis()
                    + " ms, got " + lease);
        }
        this.defaultLease = lease;
        return this;
    }

    public SettingsBuilder commandTimeout(Duration timeout) {
        requireUnset(commandTimeout, "commandTimeout");
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(Settings.MAX_COMMAND_TIMEOUT) > 0) {
            throw new IllegalArgumentException("commandTimeout must be between 1 ms and "
                    + Settings.MAX_COMMAND_TIMEOUT.toMinutes() + " minutes, got " + timeout);
        }
        this.commandTimeout = timeout;
        return this;
    }

    public SettingsBuilder waiterTimeout(Duration timeout) {
        requireUnset(waiterTimeout, "waiterTimeout");
        if (timeout == null || timeout.compareTo(Settings.MIN_WAITER_TIMEOUT) < 0 || timeout.compareTo(Settings.MAX_WAITER_TIMEOUT) > 0) {
            throw new IllegalArgumentException("waiterTimeout must be between " + Settings.MIN_WAITER_TIMEOUT.toMillis()
                    + " ms and " + Settings.MAX_WAITER_TIMEOUT.toMinutes() + " minutes, got " + timeout);
        }
        this.waiterTimeout = timeout;
        return this;
    }

    public SettingsBuilder clientName(String name) {
        requireUnset(clientName, "clientName");
        if (name == null || name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("clientName must be non-blank without white space, got '" + name + "'");
        }
        this.clientName = name;
        return this;
    }

    public SettingsBuilder outageTolerance(Duration tolerance) {
        requireUnset(outageTolerance, "outageTolerance");
        if (tolerance == null || tolerance.isNegative() || tolerance.compareTo(Settings.MAX_OUTAGE_TOLERANCE) > 0) {
            throw new IllegalArgumentException("outageTolerance must be between 0 and "
                    + Settings.MAX_OUTAGE_TOLERANCE.toDays() + " day, got " + tolerance);
        }
        this.outageTolerance = tolerance;
        return this;
    }

    public SettingsBuilder replicaAcks(int replicas, Duration timeout) {
        requireUnset(replicaAcks, "replicaAcks");
        this.replicaAcks = ReplicaAcks.of(replicas, timeout);
        return this;
    }

    public SettingsBuilder slowHoldThreshold(Duration threshold) {
        requireUnset(slowHoldThreshold, "slowHoldThreshold");
        this.slowHoldThreshold = SlowLockSettings.threshold("slowHoldThreshold", threshold);
        return this;
    }

    public SettingsBuilder slowWaitThreshold(Duration threshold) {
        requireUnset(slowWaitThreshold, "slowWaitThreshold");
        this.slowWaitThreshold = SlowLockSettings.threshold("slowWaitThreshold", threshold);
        return this;
    }

    public SettingsBuilder captureAcquireSite(boolean capture) {
        requireUnset(captureAcquireSite, "captureAcquireSite");
        this.captureAcquireSite = capture;
        return this;
    }

    /**
     * The locks live in a store other than Redis, named so in messages ("inMemory"); excludes
     * every Redis option.
     */
    public SettingsBuilder store(String name) {
        requireUnset(store, name);
        this.store = name;
        return this;
    }

    /** The settings, with a default for everything not set; checks the rules between settings. */
    public Settings build() {
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
        if ((redisUri != null ? 1 : 0) + (redlockNodes != null ? 1 : 0) + (clusterNodes != null ? 1 : 0) > 1) {
            throw new IllegalStateException("set one of redisUri, redlockNodes and clusterNodes, not several");
        }
        if (store != null && (redisUri != null || redlockNodes != null || clusterNodes != null || replicaAcks != null)) {
            throw new IllegalStateException(store + " excludes redisUri, redlockNodes, clusterNodes and replicaAcks: "
                    + "the locks live in one store");
        }
        if (redlockNodeTimeout != null && redlockNodes == null) {
            throw new IllegalStateException("redlockNodeTimeout is for Redlock clients; set redlockNodes too");
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
                        captureAcquireSite != null && captureAcquireSite));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static void requireUnset(Object current, String what) {
        if (current != null) {
            throw new IllegalStateException(what + " was set already");
        }
    }
}
