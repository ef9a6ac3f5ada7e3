package dev.dlock;

import dev.dlock.internal.lettuce.LettuceNodes;
import dev.dlock.internal.lettuce.RedisStores;
import dev.dlock.internal.settings.ClientLibraries;
import dev.dlock.internal.settings.Options;
import dev.dlock.internal.settings.ReplicaAcks;
import dev.dlock.internal.settings.Validation;
import dev.dlock.internal.store.StoreFactory;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;

/**
 * The locks in Redis (or Valkey), through Lettuce ({@code io.lettuce:lettuce-core}, which the application
 * adds: an optional dependency of dlock-core): one server or Sentinel's master ({@link #standalone(String)}),
 * Redlock over independent masters ({@link #redlock(String...)}) or a Cluster ({@link #cluster(String...)}).
 * Immutable: the options below return a new value. Each factory throws {@link IllegalStateException} naming
 * {@code io.lettuce:lettuce-core} when Lettuce is not on the class path. docs/deployments.md compares the
 * topologies.
 *
 * <pre>{@code
 * LockClient.builder().store(RedisStore.standalone("redis://redis.internal:6379").replicaAcks(1, Duration.ofMillis(50)))
 * LockClient.builder().store(RedisStore.redlock("redis://r1", "redis://r2", "redis://r3").nodeTimeout(Duration.ofMillis(100)))
 * LockClient.builder().store(RedisStore.cluster("redis://node1:7000"))
 * }</pre>
 *
 * <p>With Redis the {@linkplain LockClientBuilder#keyPrefix(String) key prefix} must not contain
 * <code>&#123;</code> or <code>&#125;</code>: they would break the hash tag that keeps a lock's keys in one
 * Cluster slot ({@link LockClientBuilder#build()} refuses it).
 */
public final class RedisStore implements Store {

    /** The Redis of {@link #localhost()}: {@value}. */
    public static final String DEFAULT_URI = "redis://127.0.0.1:6379";

    private enum Topology { STANDALONE, REDLOCK, CLUSTER }

    private final Topology topology;
    private final List<String> uris;
    private final Duration nodeTimeout;
    private final ReplicaAcks replicaAcks;
    private final ClientResources clientResources;

    private RedisStore(Topology topology, List<String> uris, Duration nodeTimeout, ReplicaAcks replicaAcks,
            ClientResources clientResources) {
        this.topology = topology;
        this.uris = List.copyOf(uris);
        this.nodeTimeout = nodeTimeout;
        this.replicaAcks = replicaAcks;
        this.clientResources = clientResources;
    }

    /**
     * One Redis, or the master that Redis Sentinels name, at a URL as Lettuce reads it:
     * {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://...} for TLS,
     * {@code redis-socket:///path} for a Unix socket, or
     * {@code redis-sentinel://[password@]host[:port][,host[:port]...][/database]?sentinelMasterId=NAME}
     * (as Lettuce writes it, {@code redis-sentinel://host[:port][,host[:port]...][/database]#NAME};
     * {@code rediss-sentinel://...} for TLS). A port left out is 6379 (26379 for a sentinel). The server
     * must answer when {@link LockClientBuilder#build()} runs.
     *
     * @param uri the Redis URL
     * @return the store
     * @throws IllegalArgumentException the URL is null, has none of these schemes, has no host or a port that is
     *     not a number, names a sentinel that is not {@code host[:port]}, names no master (neither
     *     {@code sentinelMasterId} nor {@code #NAME}), or Lettuce cannot read it; the message starts with the
     *     quoted URL
     * @throws IllegalStateException Lettuce is not on the class path
     */
    public static RedisStore standalone(String uri) {
        requireLettuce();
        String checked = Validation.redisUri(uri);
        LettuceNodes.checkReadable(checked);
        return new RedisStore(Topology.STANDALONE, List.of(checked), null, ReplicaAcks.NONE, null);
    }

    /**
     * The Redis on this machine's default port: {@code standalone(}{@value #DEFAULT_URI}{@code )}.
     *
     * @return the store
     * @throws IllegalStateException Lettuce is not on the class path
     */
    public static RedisStore localhost() {
        return standalone(DEFAULT_URI);
    }

    /**
     * Redlock: every lock is held on a majority (N/2+1) of these independent masters (not replicas of each
     * other), so it survives the loss of a minority of them; see docs/redlock.md. N must be at least 3; an odd
     * N is best, since an even N tolerates no more failed nodes than N − 1. A quorum must be reachable when
     * {@link LockClientBuilder#build()} runs; the other nodes are connected in the background.
     *
     * @param uris the masters' URLs, each as {@link #standalone(String)} takes it
     * @return the store
     * @throws IllegalArgumentException null or fewer than 3 URLs, a URL that {@link #standalone(String)} would
     *     refuse, or the same server twice (same host, ignoring case, and port, 6379 when left out; the same
     *     socket path; the same sentinels)
     * @throws IllegalStateException Lettuce is not on the class path
     */
    public static RedisStore redlock(String... uris) {
        requireLettuce();
        return new RedisStore(Topology.REDLOCK, readable("RedisStore.redlock", Options.checkRedlockNodes(uris)), null,
                ReplicaAcks.NONE, null);
    }

    /**
     * A Redis Cluster: every lock lives on the master of its name's hash slot (all of a lock's keys share the
     * hash tag {@code {name}}), wake-ups use sharded pub/sub (Redis 7 or later), and slots that fail over or
     * move to another master are followed. Give one or more nodes of the cluster; the others are found
     * through them. One of them must answer when {@link LockClientBuilder#build()} runs.
     *
     * @param uris nodes of the cluster: {@code redis://[[user]:password@]host[:port]}, or {@code rediss://...}
     * @return the store
     * @throws IllegalArgumentException null or no URL, or a URL that {@link #standalone(String)} would refuse or
     *     that is a Sentinel or socket URL
     * @throws IllegalStateException Lettuce is not on the class path
     */
    public static RedisStore cluster(String... uris) {
        requireLettuce();
        return new RedisStore(Topology.CLUSTER, readable("RedisStore.cluster", Options.checkClusterNodes(uris)), null,
                ReplicaAcks.NONE, null);
    }

    /**
     * Redlock only: how long one node may take to answer before it counts as failed. Default: a tenth of
     * the lease of each acquisition (at least 50 ms, at most the command timeout), so a slow node costs at
     * most 10% of the validity.
     *
     * @param timeout the per-node timeout, at least 1 ms
     * @return a copy of this store with the per-node timeout
     * @throws IllegalArgumentException the timeout is null or shorter than 1 ms, or this is not a
     *     {@link #redlock(String...)} store
     */
    public RedisStore nodeTimeout(Duration timeout) {
        if (topology != Topology.REDLOCK) {
            throw new IllegalArgumentException("nodeTimeout is for Redlock (RedisStore.redlock(...)), not for "
                    + describe());
        }
        return new RedisStore(topology, uris, Options.checkRedlockNodeTimeout(timeout), replicaAcks, clientResources);
    }

    /**
     * One Redis (standalone, Sentinel) or a Cluster: a grant counts only once at least {@code replicas}
     * replicas of the master have it ({@code WAIT replicas timeout} after each grant), which closes the
     * window in which a master dies before replicating a grant and a promoted replica grants the lock
     * again. A fresh hold acknowledged by fewer replicas in time is released and the attempt fails with
     * a {@link LockBackendException} naming the missing acknowledgement, tried again within the caller's
     * budget like an outage; a renewal counts only once acknowledged; releases do not wait; the local
     * handoff between this client's threads is off. Costs a round trip per grant, and a lagging replica
     * delays this client's other commands by up to {@code timeout}. Off by default. What it guarantees and
     * costs: docs/deployments.md ("replicaAcks: closing the window").
     *
     * @param replicas how many replicas must acknowledge, at least 1
     * @param timeout how long to wait for them, at least 1 ms; {@link LockClientBuilder#build()} requires it to
     *     be shorter than the command timeout
     * @return a copy of this store that waits for the replicas
     * @throws IllegalArgumentException {@code replicas} is below 1, the timeout is null or shorter than 1 ms, or
     *     this is a {@link #redlock(String...)} store (its masters must be independent: its quorum, not
     *     replication, keeps a lock across the loss of a node)
     */
    public RedisStore replicaAcks(int replicas, Duration timeout) {
        if (topology == Topology.REDLOCK) {
            throw new IllegalArgumentException("replicaAcks is for one Redis with replicas (standalone, Sentinel) or a "
                    + "Cluster, not for " + describe() + ": a Redlock client's masters must be independent, and its "
                    + "quorum, not replication, keeps a lock across the loss of a node");
        }
        return new RedisStore(topology, uris, nodeTimeout, ReplicaAcks.of(replicas, timeout), clientResources);
    }

    /**
     * Lettuce's event loops and timers to use instead of dlock's own, so that an application runs one set for
     * all its Redis clients. dlock does not shut them down when it closes (the application does, after closing
     * the client), and their reconnect delay applies: Lettuce's default waits up to 30 s before trying a lost
     * server again (dlock's own resources: at most 1 s). Default: dlock's own, shut down when the client closes.
     *
     * @param resources the application's Lettuce resources
     * @return a copy of this store on these resources
     * @throws IllegalArgumentException the resources are null
     */
    public RedisStore clientResources(ClientResources resources) {
        if (resources == null) {
            throw new IllegalArgumentException("clientResources must not be null");
        }
        return new RedisStore(topology, uris, nodeTimeout, replicaAcks, resources);
    }

    /**
     * The URLs this store was given (the one Redis, the Redlock masters or the Cluster's seed nodes), as given.
     *
     * @return the URLs, credentials included
     */
    public List<String> uris() {
        return uris;
    }

    /** @return whether this is a {@link #redlock(String...)} store */
    boolean redlock() {
        return topology == Topology.REDLOCK;
    }

    /** @return whether this is a {@link #cluster(String...)} store */
    boolean isCluster() {
        return topology == Topology.CLUSTER;
    }

    Duration nodeTimeoutOrNull() {
        return nodeTimeout;
    }

    ReplicaAcks replicaAcksOrNone() {
        return replicaAcks;
    }

    StoreFactory factory() {
        return RedisStores.connecting(clientResources);
    }

    /** What messages call this store, without credentials. */
    private String describe() {
        return switch (topology) {
            case STANDALONE -> "RedisStore.standalone";
            case REDLOCK -> "RedisStore.redlock";
            case CLUSTER -> "RedisStore.cluster";
        };
    }

    @Override
    public String toString() {
        return describe() + "(" + uris.size() + (uris.size() == 1 ? " URL" : " URLs")
                + (nodeTimeout != null ? ", nodeTimeout " + nodeTimeout : "")
                + (replicaAcks.enabled() ? ", replicaAcks " + replicaAcks : "") + ")";
    }

    private static void requireLettuce() {
        ClientLibraries.require("RedisStore", "io.lettuce.core.RedisClient", "io.lettuce:lettuce-core");
    }

    /** Lettuce must read every node's URL too (dlock's own check passed): a message names the factory. */
    private static List<String> readable(String factory, List<String> uris) {
        for (String uri : uris) {
            try {
                LettuceNodes.checkReadable(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(factory + ": " + e.getMessage(), e);
            }
        }
        return uris;
    }
}
