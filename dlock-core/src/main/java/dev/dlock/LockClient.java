package dev.dlock;

import dev.dlock.internal.LettuceNode;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.RedisLock;
import dev.dlock.internal.RedisReadWriteLock;
import dev.dlock.internal.Validation;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The entry point: a connection to Redis from which locks are obtained. Thread-safe; make one per
 * application and share it. Locks of the same name from any client on the same Redis and key
 * prefix exclude each other.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.builder().redisUri("redis://localhost:6379").build()) {
 *     DistributedLock lock = client.getLock("nightly-report");
 *     if (lock.tryLock(Duration.ofSeconds(5), Duration.ofMinutes(10))) {
 *         try { ... } finally { lock.unlock(); }
 *     }
 * }
 * }</pre>
 */
public final class LockClient implements AutoCloseable {

    /** Lease of holds taken without an explicit lease; the watchdog renews it every third. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** How long one Redis command may take before its outcome is declared unknown. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    public static final String DEFAULT_KEY_PREFIX = "dlock:";
    public static final String DEFAULT_REDIS_URI = "redis://127.0.0.1:6379";
    /** The longest wait or lease accepted (365 days); longer values are taken for unit mistakes. */
    public static final Duration MAX_WAIT = Validation.MAX_DURATION;
    public static final Duration MAX_LEASE = Validation.MAX_DURATION;
    /** The shortest watchdog lease: renewals every third of it must stay well above a round trip. */
    public static final Duration MIN_WATCHDOG_LEASE = Duration.ofMillis(100);
    /**
     * How long a queued waiter keeps its place without asking again (fair lock; a writer's
     * waiting mark on a read-write lock), unless the command timeout asks for more (see
     * {@link Builder#waiterTimeout(Duration)}). Waiters ask every third of it while they wait, so
     * only a dead or frozen waiter loses its place; it then holds up the queue for at most this long.
     */
    public static final Duration DEFAULT_WAITER_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration MIN_WAITER_TIMEOUT = Duration.ofMillis(100);
    public static final Duration MAX_WAITER_TIMEOUT = Duration.ofMinutes(10);

    private final LockEngine engine;
    private final ClientResources resources;

    private LockClient(LockEngine engine, ClientResources resources) {
        this.engine = engine;
        this.resources = resources;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A client with every default, on the given URI ({@code redis://[user:password@]host:port[/db]}). */
    public static LockClient create(String redisUri) {
        return builder().redisUri(redisUri).build();
    }

    /**
     * The lock of this name. Cheap: no Redis call; lock objects of one name share their holds.
     *
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters
     */
    public DistributedLock getLock(String name) {
        return RedisLock.reentrant(engine, name);
    }

    /**
     * The fair lock of this name: granted in the order it was asked for, across every client. Like
     * {@link #getLock(String)} otherwise (reentrant, leases, watchdog, fencing tokens, handles).
     *
     * <ul>
     * <li>A waiter is queued from its first refused attempt; the release hands the lock to the
     *     first live waiter within the release script, and wakes only that waiter.
     * <li>A waiter that stops waiting (timeout, interrupt, cancelled future) leaves the queue
     *     before the call returns. A waiter whose process died stalls the queue for at most the
     *     {@linkplain Builder#waiterTimeout(Duration) waiter timeout} (default 5 s), never for the
     *     lease it asked for.
     * <li>{@code tryLock()} without a wait never overtakes queued waiters: it succeeds only when
     *     the lock is free and no one waits.
     * <li>Over Redlock the order is the order in which the nodes first saw the waiters (each
     *     waiter keeps the median of its nodes' times as its ticket), so it is exact for waiters
     *     that ask a few milliseconds apart and best effort for waiters that ask at once.
     * </ul>
     *
     * Cheap: no Redis call. Locks of one name should all be fair or all not: a plain lock of the
     * same name excludes the fair one but ignores its queue.
     *
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters
     */
    public DistributedLock getFairLock(String name) {
        return RedisLock.fair(engine, name);
    }

    /**
     * The read-write lock of this name: many readers or one writer, writers first; see
     * {@link DistributedReadWriteLock} for the policy, downgrade and the refused upgrade. Cheap: no
     * Redis call. A plain or fair lock of the same name counts as a writer to it.
     *
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters
     */
    public DistributedReadWriteLock getReadWriteLock(String name) {
        return new RedisReadWriteLock(engine, name);
    }

    /**
     * Every lock held now whose name matches {@code namePattern} (a Redis glob: {@code *}, {@code ?},
     * {@code [abc]}), sorted by name. Walks the keyspace with SCAN, so it does not block Redis, but
     * it costs a round trip per matching lock: meant for operators and dashboards, not hot paths.
     *
     * @throws LockBackendException Redis did not answer
     */
    public List<LockInfo> listLocks(String namePattern) {
        if (namePattern == null || namePattern.isEmpty()) {
            throw new IllegalArgumentException("namePattern must not be empty, got '" + namePattern + "' (use \"*\" for all)");
        }
        try {
            return engine.list(namePattern).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException("interrupted while listing locks", e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c ? c.getCause() : e.getCause();
            throw cause instanceof LockBackendException b ? new LockBackendException(b.getMessage(), b)
                    : new LockBackendException(String.valueOf(cause), cause);
        }
    }

    /** The Redis (or Redlock nodes) this client talks to, without credentials. */
    public String address() {
        return engine.describe();
    }

    /**
     * Stops renewals, releases every lock this client holds (best effort, bounded by the command
     * timeout; a lock that cannot be released expires with its lease) and disconnects. Holders
     * still inside a critical section see their hold as lost.
     */
    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Builds a {@link LockClient}. Each setter validates its value and may be called once.
     */
    public static final class Builder {
        private RedisURI redisUri;
        private List<RedisURI> redlockNodes;
        private Duration redlockNodeTimeout;
        private String keyPrefix;
        private Duration defaultLease;
        private Duration commandTimeout;
        private Duration waiterTimeout;
        private String clientName;
        private final List<LockListener> listeners = new ArrayList<>();

        private Builder() {
        }

        /**
         * Where Redis is: {@code redis://[[user]:password@]host[:port][/database]}, or
         * {@code rediss://...} for TLS, as Lettuce reads it. Default {@code redis://127.0.0.1:6379}.
         */
        public Builder redisUri(String uri) {
            requireUnset(redisUri, "redisUri");
            this.redisUri = parseUri("redisUri", uri);
            return this;
        }

        private static RedisURI parseUri(String what, String uri) {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank, got '" + uri + "'");
            }
            try {
                return RedisURI.create(uri);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(what + " is not a Redis URI: '" + uri + "' (" + e.getMessage()
                        + "); expected redis://[user:password@]host:port[/db]", e);
            }
        }

        /**
         * Makes this a Redlock client: every lock is held on a majority (N/2+1) of these independent
         * masters (not replicas of each other), so it survives the loss of a minority of them; see
         * docs/redlock.md. N must be at least 3; an odd N is best, since an even N tolerates no more
         * failed nodes than N − 1. Excludes {@link #redisUri(String)}. A quorum must be reachable
         * when {@link #build()} runs; the other nodes are connected in the background.
         */
        public Builder redlockNodes(String... uris) {
            requireUnset(redlockNodes, "redlockNodes");
            if (uris == null || uris.length < 3) {
                throw new IllegalArgumentException("redlockNodes needs at least 3 independent masters, got "
                        + (uris == null ? "null" : java.util.Arrays.toString(uris))
                        + "; for one Redis use redisUri");
            }
            List<RedisURI> parsed = new ArrayList<>();
            for (String uri : uris) {
                parsed.add(parseUri("redlockNodes", uri));
            }
            if (parsed.stream().map(u -> u.getHost() + ":" + u.getPort()).distinct().count() < parsed.size()) {
                throw new IllegalArgumentException("redlockNodes must be distinct servers, got "
                        + java.util.Arrays.toString(uris));
            }
            this.redlockNodes = parsed;
            return this;
        }

        /**
         * Redlock only: how long one node may take to answer before it counts as failed. Default: a
         * tenth of the lease of each acquisition (at least 50 ms, at most the command timeout), so
         * a slow node costs at most 10% of the validity.
         */
        public Builder redlockNodeTimeout(Duration timeout) {
            requireUnset(redlockNodeTimeout, "redlockNodeTimeout");
            if (timeout == null || timeout.isNegative() || timeout.toMillis() < 1) {
                throw new IllegalArgumentException("redlockNodeTimeout must be at least 1 ms, got " + timeout);
            }
            this.redlockNodeTimeout = timeout;
            return this;
        }

        /** Prefix of every key and channel (default {@value LockClient#DEFAULT_KEY_PREFIX}). */
        public Builder keyPrefix(String prefix) {
            requireUnset(keyPrefix, "keyPrefix");
            if (prefix == null || prefix.contains("{") || prefix.contains("}")) {
                throw new IllegalArgumentException("keyPrefix must be non-null without '{' or '}' (they would break "
                        + "the lock's hash tag), got '" + prefix + "'");
            }
            this.keyPrefix = prefix;
            return this;
        }

        /**
         * Lease of holds taken without an explicit lease, renewed by the watchdog every third of it
         * (default 30 s, at least {@link LockClient#MIN_WATCHDOG_LEASE}). A crashed holder blocks
         * others for at most this long.
         */
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

        /** Longest wait for one Redis reply before its outcome is declared unknown (default 3 s). */
        public Builder commandTimeout(Duration timeout) {
            requireUnset(commandTimeout, "commandTimeout");
            if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("commandTimeout must be between 1 ms and 10 minutes, got " + timeout);
            }
            this.commandTimeout = timeout;
            return this;
        }

        /**
         * How long a queued waiter keeps its place without asking again (between
         * {@link LockClient#MIN_WAITER_TIMEOUT} and {@link LockClient#MAX_WAITER_TIMEOUT}): a
         * fair lock's waiter, or a writer's waiting mark on a read-write lock. Live waiters ask
         * every third of it, so this bounds how long a waiter whose process died holds up the
         * others. Must exceed 1.5 × the command timeout, so that a waiter's refresh that Redis
         * answers within the command timeout always arrives in time. Default: 5 s, or twice the
         * command timeout when that is longer.
         */
        public Builder waiterTimeout(Duration timeout) {
            requireUnset(waiterTimeout, "waiterTimeout");
            if (timeout == null || timeout.compareTo(MIN_WAITER_TIMEOUT) < 0 || timeout.compareTo(MAX_WAITER_TIMEOUT) > 0) {
                throw new IllegalArgumentException("waiterTimeout must be between " + MIN_WAITER_TIMEOUT.toMillis()
                        + " ms and " + MAX_WAITER_TIMEOUT.toMinutes() + " minutes, got " + timeout);
            }
            this.waiterTimeout = timeout;
            return this;
        }

        /**
         * Name recorded with every hold (for {@code dlock status}) and set as the Redis CLIENT
         * name. Default {@code dlock-<pid>}. No white space (Redis refuses it).
         */
        public Builder clientName(String name) {
            requireUnset(clientName, "clientName");
            if (name == null || name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("clientName must be non-blank without white space, got '" + name + "'");
            }
            this.clientName = name;
            return this;
        }

        /** Told when a hold is lost; may be called several times to add listeners. */
        public Builder listener(LockListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener must not be null");
            }
            listeners.add(listener);
            return this;
        }

        /**
         * Connects to Redis.
         *
         * @throws LockBackendException Redis cannot be reached or refuses the credentials
         */
        public LockClient build() {
            RedisURI uri = redisUri != null ? redisUri : RedisURI.create(DEFAULT_REDIS_URI);
            String name = clientName != null ? clientName : "dlock-" + ProcessHandle.current().pid();
            Duration timeout = commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT;
            Duration lease = defaultLease != null ? defaultLease : DEFAULT_LEASE;
            if (timeout.compareTo(lease.dividedBy(3)) >= 0) {
                throw new IllegalArgumentException("commandTimeout " + timeout + " must be shorter than a third of "
                        + "defaultLease " + lease + ", or a renewal could time out after the lease ran out");
            }
            Duration waiterTimeout = this.waiterTimeout != null ? this.waiterTimeout
                    : Collections.max(List.of(DEFAULT_WAITER_TIMEOUT, timeout.multipliedBy(2)));
            if (waiterTimeout.toMillis() * 2 <= timeout.toMillis() * 3) {
                throw new IllegalArgumentException("waiterTimeout " + waiterTimeout + " must exceed 1.5 × commandTimeout "
                        + timeout + ", or a waiter's refresh could reach Redis after its deadline");
            }
            if (redisUri != null && redlockNodes != null) {
                throw new IllegalStateException("set either redisUri or redlockNodes, not both");
            }
            if (redlockNodeTimeout != null && redlockNodes == null) {
                throw new IllegalStateException("redlockNodeTimeout is for Redlock clients; set redlockNodes too");
            }
            String prefix = keyPrefix != null ? keyPrefix : DEFAULT_KEY_PREFIX;
            // a lock client must notice a returning server within a second, not Lettuce's default 30 s
            ClientResources resources = DefaultClientResources.builder()
                    .reconnectDelay(() -> Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                    .build();
            List<LettuceNode> connected = new ArrayList<>();
            try {
                if (redlockNodes == null) {
                    uri.setClientName(name);
                    LettuceNode node = new LettuceNode(resources, uri, timeout, false);
                    connected.add(node);
                    return new LockClient(LockEngine.singleNode(node, prefix, lease, timeout, waiterTimeout, name, listeners),
                            resources);
                }
                for (RedisURI nodeUri : redlockNodes) {
                    nodeUri.setClientName(name);
                    connected.add(new LettuceNode(resources, nodeUri, timeout, true));
                }
                long reachable = connected.stream().filter(LettuceNode::hasConnected).count();
                if (reachable < redlockNodes.size() / 2 + 1) {
                    throw new LockBackendException("cannot build a Redlock client: only " + reachable + " of "
                            + redlockNodes.size() + " nodes reachable, " + (redlockNodes.size() / 2 + 1) + " needed: "
                            + connected.stream().filter(node -> !node.hasConnected()).map(LettuceNode::address).toList());
                }
                LockEngine engine = LockEngine.redlock(List.copyOf(connected),
                        redlockNodeTimeout != null ? redlockNodeTimeout : Duration.ZERO, prefix, lease, timeout,
                        waiterTimeout, name, listeners);
                return new LockClient(engine, resources);
            } catch (RuntimeException e) {
                connected.forEach(LettuceNode::close);
                resources.shutdown(0, 1, TimeUnit.SECONDS);
                throw e;
            }
        }

        private static void requireUnset(Object current, String what) {
            if (current != null) {
                throw new IllegalStateException(what + " was set already");
            }
        }
    }
}
