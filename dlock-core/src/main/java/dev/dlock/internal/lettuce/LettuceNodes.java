package dev.dlock.internal.lettuce;

import dev.dlock.LockBackendException;
import dev.dlock.internal.redis.RedisNode;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Validation;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce side of building a client: parses the Redis URLs, makes or borrows the
 * {@link ClientResources} (event loops, timers) and connects one {@link LettuceNode} per server,
 * or one {@link ClusterNode} for a Redis Cluster.
 * With resources of the application's own, dlock uses them as they are (their reconnect delay
 * included) and never shuts them down; with its own, it shuts them down at {@link #close()}.
 */
public final class LettuceNodes implements AutoCloseable {

    private final List<RedisNode> nodes;
    private final ClientResources ownResources;

    private LettuceNodes(List<RedisNode> nodes, ClientResources ownResources) {
        this.nodes = List.copyOf(nodes);
        this.ownResources = ownResources;
    }

    /**
     * Checks the URL by dlock's rule ({@link Validation#redisUri}), then that Lettuce reads it.
     *
     * @throws IllegalArgumentException it is refused, with a message that starts with the quoted URL
     */
    public static void checkReadable(String uri) {
        parse(Validation.redisUri(uri));
    }

    private static RedisURI parse(String uri) {
        try {
            return RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(Validation.unreadableRedisUri(uri, String.valueOf(e.getMessage())), e);
        }
    }

    /**
     * Connects to the servers of the settings. A single Redis must answer; of Redlock masters a
     * quorum must, and the others are connected in the background; of a Cluster's seed nodes one
     * must.
     *
     * @param shared the application's resources, or null for dlock's own
     * @throws LockBackendException the server (a quorum of the masters) cannot be reached or refuses the credentials
     */
    public static LettuceNodes connect(Settings settings, ClientResources shared) {
        ClientResources resources = shared != null ? shared : DefaultClientResources.builder()
                .reconnectDelay(() -> Delay.exponential(settings.firstReconnectDelay(), settings.maxReconnectDelay(), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        if (settings.cluster()) {
            return connectCluster(settings, resources, shared);
        }
        List<LettuceNode> connected = new ArrayList<>();
        DistinctServers distinctServers = settings.redlock() ? new DistinctServers() : null;
        try {
            for (String uri : settings.redisUris()) {
                RedisURI parsed = parse(uri);
                parsed.setClientName(settings.clientName());
                connected.add(new LettuceNode(resources, parsed, settings, settings.redlock(), distinctServers));
            }
            if (settings.redlock()) {
                requireDistinctServers(distinctServers);
                requireQuorum(connected);
                distinctServers.built();
            }
            boolean withWait = settings.replicaAcks().enabled();
            for (LettuceNode node : connected) {
                if (node.hasConnected()) {
                    CommandCheck.requireAll(node.address(), node.commandProbes(withWait), settings.commandTimeout().toMillis());
                    PersistenceCheck.warnIfNone(node);
                    EvictionCheck.warnIfEvicting(node);
                }
            }
            return new LettuceNodes(List.copyOf(connected), shared != null ? null : resources);
        } catch (RuntimeException e) {
            connected.forEach(LettuceNode::close);
            if (shared == null) {
                resources.shutdown(0, 1, TimeUnit.SECONDS);
            }
            throw e;
        }
    }

    /** The cluster is one logical Redis: one {@link ClusterNode} for all its seed nodes. */
    private static LettuceNodes connectCluster(Settings settings, ClientResources resources, ClientResources shared) {
        List<RedisURI> seeds = new ArrayList<>();
        for (String uri : settings.redisUris()) {
            RedisURI parsed = parse(uri);
            parsed.setClientName(settings.clientName());
            seeds.add(parsed);
        }
        ClusterNode cluster = null;
        try {
            cluster = new ClusterNode(resources, seeds, settings);
            CommandCheck.requireAll(cluster.address(), cluster.commandProbes(settings.replicaAcks().enabled()),
                    settings.commandTimeout().toMillis());
            return new LettuceNodes(List.of(cluster), shared != null ? null : resources);
        } catch (RuntimeException e) {
            if (cluster != null) {
                cluster.close();
            }
            if (shared == null) {
                resources.shutdown(0, 1, TimeUnit.SECONDS);
            }
            throw e;
        }
    }

    /** URLs that name one server twice are a configuration error, known before any lock is taken. */
    private static void requireDistinctServers(DistinctServers servers) {
        List<String> shared = servers.sharedServers();
        if (!shared.isEmpty()) {
            throw new IllegalArgumentException("RedisStore.redlock needs distinct servers: " + String.join("; ", shared)
                    + ". A Redlock's majority must be a majority of servers");
        }
    }

    private static void requireQuorum(List<LettuceNode> connected) {
        long reachable = connected.stream().filter(LettuceNode::hasConnected).count();
        int quorum = Settings.quorumOf(connected.size());
        if (reachable < quorum) {
            throw new LockBackendException("cannot build a Redlock client: only " + reachable + " of "
                    + connected.size() + " nodes reachable, " + quorum + " needed: "
                    + connected.stream().filter(node -> !node.hasConnected()).map(LettuceNode::address).toList());
        }
    }

    /** The connected nodes, in the order of the settings' URLs. */
    public List<RedisNode> nodes() {
        return nodes;
    }

    /** Shuts down dlock's own resources; the nodes are closed by their store. */
    @Override
    public void close() {
        if (ownResources != null) {
            ownResources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }
}
