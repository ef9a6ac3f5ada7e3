package dev.dlock.internal.settings;

import java.time.Duration;
import java.util.List;

/**
 * Everything one client is configured with, defaults and limits included, fixed when the client
 * is built (from the {@link Options} {@code LockClientBuilder} collected). The pieces of the client
 * read their options and the tunables of the lock algorithms from here (the methods below derive
 * every tunable from the options), not from constants of their own.
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
 *                           released) where the lock lives (see {@link dev.dlock.internal.redis.TokenFloors})
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
    /**
     * How long an acquire with a wait may take beyond its wait when the store does not answer: the
     * attempt made as the wait ends gets this long for its round trip (ample on a healthy store).
     */
    public static final Duration WAIT_OVERRUN = Duration.ofSeconds(1);
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
}
