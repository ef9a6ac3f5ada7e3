package dev.dlock.internal.settings;

import dev.dlock.internal.redis.TokenFloors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Everything one client is configured with, defaults and limits included, fixed when the client
 * is built ({@link Builder}, behind {@code LockClientBuilder}). The pieces of the client read their
 * options and the tunables of the lock algorithms from here, not from constants of their own.
 *
 * @param redisUris          the one Redis, the Redlock masters, or the Cluster's seed nodes (as given, checked
 *                           by {@link Validation#redisUri})
 * @param redlock            whether {@code redisUris} are Redlock masters
 * @param cluster            whether {@code redisUris} are seed nodes of one Redis Cluster
 * @param keyPrefix          prefix of every key and channel
 * @param clientName         recorded with every hold and set as the Redis CLIENT name
 * @param defaultLease       lease of holds taken without one; the watchdog renews it every third
 * @param commandTimeout     longest wait for one Redis reply
 * @param waiterTimeout      how long a queued waiter keeps its place without asking again
 * @param redlockNodeTimeout Redlock: per-node timeout; {@link Duration#ZERO} to derive it from each lease
 * @param minRedlockNodeTimeout the least a derived per-node timeout may be
 * @param tokenFloorTtl      how long a token floor remembers the highest token granted (Redlock: or
 *                           released) where the lock lives (see {@link TokenFloors})
 * @param renewBatch         holds renewed per script call by the watchdog
 * @param firstReconnectDelay first pause before a lost or never made connection is tried again
 * @param maxReconnectDelay  longest pause between reconnect attempts (they double up to it)
 * @param outageTolerance    how long an acquire without a wait budget ({@code lock()}) keeps trying
 *                           through Redis failures before it throws; an acquire with a budget keeps
 *                           trying until its budget ends
 * @param replicaAcks        one Redis: how many replicas must acknowledge a grant or renewal, and how
 *                           long to wait for them; {@link ReplicaAcks#NONE} when not asked for
 * @param slowLocks          when holds and waits are logged as slow; {@link SlowLockSettings#OFF} by default
 */
public record Settings(List<String> redisUris, boolean redlock, boolean cluster, String keyPrefix, String clientName,
                       Duration defaultLease, Duration commandTimeout, Duration waiterTimeout,
                       Duration redlockNodeTimeout, Duration minRedlockNodeTimeout, Duration tokenFloorTtl,
                       int renewBatch, Duration firstReconnectDelay, Duration maxReconnectDelay,
                       Duration outageTolerance, ReplicaAcks replicaAcks, SlowLockSettings slowLocks) {

    public static final String DEFAULT_REDIS_URI = "redis://127.0.0.1:6379";
    public static final String DEFAULT_KEY_PREFIX = "dlock:";
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    public static final Duration MAX_COMMAND_TIMEOUT = Duration.ofMinutes(10);
    public static final Duration MIN_WATCHDOG_LEASE = Duration.ofMillis(100);
    public static final Duration DEFAULT_WAITER_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration MIN_WAITER_TIMEOUT = Duration.ofMillis(100);
    public static final Duration MAX_WAITER_TIMEOUT = Duration.ofMinutes(10);
    public static final Duration MIN_REDLOCK_NODE_TIMEOUT = Duration.ofMillis(50);
    public static final Duration TOKEN_FLOOR_TTL = Duration.ofMinutes(10);
    public static final int RENEW_BATCH = 500;
    /** A lock client must notice a returning server within a second, not Lettuce's default 30 s. */
    public static final Duration FIRST_RECONNECT_DELAY = Duration.ofMillis(10);
    public static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);
    /** Rides through a Redis restart or a failover (typically seconds) without failing {@code lock()}. */
    public static final Duration DEFAULT_OUTAGE_TOLERANCE = Duration.ofSeconds(30);
    public static final Duration MAX_OUTAGE_TOLERANCE = Duration.ofDays(1);
    /** First pause after a failed attempt; it doubles up to the longest (both capped by the budget left). */
    public static final Duration FIRST_OUTAGE_RETRY = Duration.ofMillis(10);
    public static final Duration MAX_OUTAGE_RETRY = Duration.ofSeconds(1);
    /** Bounds of the random pause after a split Redlock vote, in ms. */
    private static final long MIN_SPLIT_BACKOFF_MS = 2;
    private static final long MAX_SPLIT_BACKOFF_MS = 50;

    public Settings {
        redisUris = List.copyOf(redisUris);
    }

    /** Upper bound of the random pause after a split Redlock vote: a hundredth of the lease, 2 to 50 ms. */
    public long splitBackoffMs() {
        return Math.max(MIN_SPLIT_BACKOFF_MS, Math.min(MAX_SPLIT_BACKOFF_MS, defaultLease.toMillis() / 100));
    }

    /** How long a waiter sleeps when the holder's key has no TTL (should not happen): one watchdog lease. */
    public Duration idleRetry() {
        return defaultLease;
    }

    /** The majority of {@code nodes} independent servers: more than half of them. */
    public static int quorumOf(int nodes) {
        return nodes / 2 + 1;
    }

    /**
     * Redlock: how much less than its lease a grant is trusted for, for the clocks of the nodes
     * and of this client running apart: a hundredth of the lease, plus 2 ms.
     */
    public static long driftMs(long leaseMs) {
        return leaseMs / 100 + 2;
    }

    /**
     * Redlock: how long one node may take to answer a call tied to a lease: the fixed per-node
     * timeout when one is set, else a tenth of the lease (so a slow node costs at most 10% of
     * the validity), at least the least per-node timeout and at most the command timeout.
     */
    public long redlockNodeTimeoutMs(long leaseMs) {
        if (!redlockNodeTimeout.isZero()) {
            return redlockNodeTimeout.toMillis();
        }
        return Math.min(commandTimeout.toMillis(), Math.max(minRedlockNodeTimeout.toMillis(), leaseMs / 10));
    }

    /** Redlock: how long one node may take to answer a call not tied to a lease (release, inspect, ...). */
    public long redlockOperationTimeoutMs() {
        return redlockNodeTimeout.isZero() ? commandTimeout.toMillis() : redlockNodeTimeout.toMillis();
    }

    /** How long a waiter queued in the store may wait before it must ask again: a third of the waiter timeout. */
    public long waiterRefreshMs() {
        return Math.max(1, waiterTimeout.toMillis() / 3);
    }

    /** How often the watchdog renews holds of this lease: every third of it. */
    public static long renewalPeriodMs(long leaseMs) {
        return Math.max(1, leaseMs / 3);
    }

    /**
     * The longest a caller blocks on store work that is itself bounded by the command timeout
     * (the releases at close, a blocking handle's start): the command timeout and a second more.
     */
    public long closeBoundMs() {
        return commandTimeout.toMillis() + 1000;
    }

    /** Without the URLs' credentials: the servers only. */
    @Override
    public String toString() {
        return "Settings[servers=" + redisUris.stream().map(Validation::redisServer).toList() + ", redlock=" + redlock
                + ", cluster=" + cluster + ", keyPrefix=" + keyPrefix + ", clientName=" + clientName + ", defaultLease="
                + defaultLease
                + ", commandTimeout=" + commandTimeout + ", waiterTimeout=" + waiterTimeout + ", redlockNodeTimeout="
                + redlockNodeTimeout + ", minRedlockNodeTimeout=" + minRedlockNodeTimeout + ", tokenFloorTtl="
                + tokenFloorTtl + ", renewBatch=" + renewBatch + ", reconnectDelay=" + firstReconnectDelay + ".."
                + maxReconnectDelay + ", outageTolerance=" + outageTolerance + ", replicaAcks=" + replicaAcks + ", " + slowLocks + "]";
    }

    /** Collects and checks the settings; each setter names the bad value and may be called once. */
    public static final class Builder {
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

        public Builder redisUri(String uri) {
            requireUnset(redisUri, "redisUri");
            this.redisUri = Validation.redisUri(uri);
            return this;
        }

        public Builder redlockNodes(String... uris) {
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

        public Builder clusterNodes(String... uris) {
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

        public Builder redlockNodeTimeout(Duration timeout) {
            requireUnset(redlockNodeTimeout, "redlockNodeTimeout");
            if (timeout == null || timeout.isNegative() || timeout.toMillis() < 1) {
                throw new IllegalArgumentException("redlockNodeTimeout must be at least 1 ms, got " + timeout);
            }
            this.redlockNodeTimeout = timeout;
            return this;
        }

        public Builder keyPrefix(String prefix) {
            requireUnset(keyPrefix, "keyPrefix");
            if (prefix == null || prefix.contains("{") || prefix.contains("}")) {
                throw new IllegalArgumentException("keyPrefix must be non-null without '{' or '}' (they would break "
                        + "the lock's hash tag), got '" + prefix + "'");
            }
            this.keyPrefix = prefix;
            return this;
        }

        public Builder defaultLease(Duration lease) {
            requireUnset(defaultLease, "defaultLease");
            Validation.leaseMillis("defaultLease", lease);
            if (lease.compareTo(MIN_WATCHDOG_LEASE) < 0) {
                throw new IllegalArgumentException("defaultLease must be at least " + MIN_WATCHDOG_LEASE.toMillis()
                        + " ms, got " + lease);
            }
            this.defaultLease = lease;
            return this;
        }

        public Builder commandTimeout(Duration timeout) {
            requireUnset(commandTimeout, "commandTimeout");
            if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
                throw new IllegalArgumentException("commandTimeout must be between 1 ms and "
                        + MAX_COMMAND_TIMEOUT.toMinutes() + " minutes, got " + timeout);
            }
            this.commandTimeout = timeout;
            return this;
        }

        public Builder waiterTimeout(Duration timeout) {
            requireUnset(waiterTimeout, "waiterTimeout");
            if (timeout == null || timeout.compareTo(MIN_WAITER_TIMEOUT) < 0 || timeout.compareTo(MAX_WAITER_TIMEOUT) > 0) {
                throw new IllegalArgumentException("waiterTimeout must be between " + MIN_WAITER_TIMEOUT.toMillis()
                        + " ms and " + MAX_WAITER_TIMEOUT.toMinutes() + " minutes, got " + timeout);
            }
            this.waiterTimeout = timeout;
            return this;
        }

        public Builder clientName(String name) {
            requireUnset(clientName, "clientName");
            if (name == null || name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("clientName must be non-blank without white space, got '" + name + "'");
            }
            this.clientName = name;
            return this;
        }

        public Builder outageTolerance(Duration tolerance) {
            requireUnset(outageTolerance, "outageTolerance");
            if (tolerance == null || tolerance.isNegative() || tolerance.compareTo(MAX_OUTAGE_TOLERANCE) > 0) {
                throw new IllegalArgumentException("outageTolerance must be between 0 and "
                        + MAX_OUTAGE_TOLERANCE.toDays() + " day, got " + tolerance);
            }
            this.outageTolerance = tolerance;
            return this;
        }

        public Builder replicaAcks(int replicas, Duration timeout) {
            requireUnset(replicaAcks, "replicaAcks");
            this.replicaAcks = ReplicaAcks.of(replicas, timeout);
            return this;
        }

        public Builder slowHoldThreshold(Duration threshold) {
            requireUnset(slowHoldThreshold, "slowHoldThreshold");
            this.slowHoldThreshold = SlowLockSettings.threshold("slowHoldThreshold", threshold);
            return this;
        }

        public Builder slowWaitThreshold(Duration threshold) {
            requireUnset(slowWaitThreshold, "slowWaitThreshold");
            this.slowWaitThreshold = SlowLockSettings.threshold("slowWaitThreshold", threshold);
            return this;
        }

        public Builder captureAcquireSite(boolean capture) {
            requireUnset(captureAcquireSite, "captureAcquireSite");
            this.captureAcquireSite = capture;
            return this;
        }

        /**
         * The locks live in a store other than Redis, named so in messages ("inMemory"); excludes
         * every Redis option.
         */
        public Builder store(String name) {
            requireUnset(store, name);
            this.store = name;
            return this;
        }

        /** The settings, with a default for everything not set; checks the rules between settings. */
        public Settings build() {
            Duration timeout = commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT;
            Duration lease = defaultLease != null ? defaultLease : DEFAULT_LEASE;
            if (timeout.compareTo(lease.dividedBy(3)) >= 0) {
                throw new IllegalArgumentException("commandTimeout " + timeout + " must be shorter than a third of "
                        + "defaultLease " + lease + ", or a renewal could time out after the lease ran out");
            }
            Duration waiting = waiterTimeout != null ? waiterTimeout
                    : max(DEFAULT_WAITER_TIMEOUT, timeout.multipliedBy(2));
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
                    : List.of(redisUri != null ? redisUri : DEFAULT_REDIS_URI), redlock, cluster,
                    keyPrefix != null ? keyPrefix : DEFAULT_KEY_PREFIX,
                    clientName != null ? clientName : "dlock-" + ProcessHandle.current().pid(),
                    lease, timeout, waiting, redlockNodeTimeout != null ? redlockNodeTimeout : Duration.ZERO,
                    MIN_REDLOCK_NODE_TIMEOUT, TOKEN_FLOOR_TTL, RENEW_BATCH, FIRST_RECONNECT_DELAY, MAX_RECONNECT_DELAY,
                    outageTolerance != null ? outageTolerance : DEFAULT_OUTAGE_TOLERANCE,
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
}
