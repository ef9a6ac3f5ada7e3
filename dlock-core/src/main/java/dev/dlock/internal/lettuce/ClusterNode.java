package dev.dlock.internal.lettuce;

import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.redis.RedisNode;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.store.IncompleteScan;
import dev.dlock.internal.store.NodeFailure;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A {@link RedisNode} on a Redis Cluster, through Lettuce's cluster client: one logical Redis whose
 * keys live on the master of their hash slot. Lettuce routes each command by its first key and
 * follows MOVED and ASK redirections; it refreshes its view of the cluster every second and at
 * once on a redirection or a lost node, so a failed-over or resharded slot is found again.
 *
 * <p>Scripts run in their {@link LuaScript.Variant#SHARDED} variant (SPUBLISH, PUBSUB SHARDNUMSUB)
 * and wake-ups use sharded pub/sub ({@link ClusterPubSub}), so a release message stays in the
 * shard of its lock. Commands are sent in the order they were issued ({@link CommandOrder}), and
 * every failed future fails with a {@link NodeFailure} ({@link LettuceErrors}), as on
 * {@link LettuceNode}.
 */
public final class ClusterNode implements RedisNode {

    private static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(1);
    /** A cluster client that still tries to reach a killed node can take forever to shut down. */
    private static final long SHUTDOWN_BOUND_MS = 5000;

    private final RedisClusterClient client;
    private final String address;
    private final long commandTimeoutMs;
    private final CommandOrder commandOrder;
    private final StatefulRedisClusterConnection<String, String> connection;
    private final RedisAdvancedClusterAsyncCommands<String, String> commands;
    private final ClusterPubSub pubSub;

    /**
     * Connects to the cluster through the seed nodes (any one that answers will do).
     *
     * @throws dev.dlock.LockBackendException no seed answers, or the credentials are refused
     */
    public ClusterNode(ClientResources resources, List<RedisURI> seeds, Settings settings) {
        Duration commandTimeout = settings.commandTimeout();
        this.commandTimeoutMs = commandTimeout.toMillis();
        this.address = "redis-cluster://" + seeds.stream().map(LettuceErrors::describe)
                .map(uri -> uri.substring(uri.indexOf("://") + 3)).collect(Collectors.joining(","));
        // every command keeps the command timeout (TimeoutOptions); a seed's timeout bounds the connection's
        // set-up and the topology refreshes (CLUSTER NODES from every node)
        Duration connectTimeout = LettuceNode.connectTimeout(commandTimeout);
        seeds.forEach(seed -> seed.setTimeout(connectTimeout));
        this.client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
                // without a refresh the client keeps sending a failed-over slot's commands to the dead master
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers()
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD).build())
                .build());
        this.commandOrder = new CommandOrder(resources.eventExecutorGroup().next());
        StatefulRedisClusterConnection<String, String> commandLink = null;
        try {
            commandLink = client.connect();
            this.pubSub = new ClusterPubSub(client, resources);
        } catch (RedisException e) {
            if (commandLink != null) {
                commandLink.close();
            }
            shutDown();
            throw LettuceErrors.cannotConnect(LettuceErrors.translate(address, connectTimeout.toMillis(), false, e));
        }
        this.connection = commandLink;
        this.commands = commandLink.async();
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
        ScriptOutputType output = script.output() == LuaScript.Output.INTEGER ? ScriptOutputType.INTEGER
                : ScriptOutputType.MULTI;
        String sha1 = script.sha1(LuaScript.Variant.SHARDED);
        CompletableFuture<Object> bySha = commandOrder.send(() -> commands.<Object>evalsha(sha1, output, keys, args));
        return AclRefusals.named(failingAsNode(bySha.exceptionallyCompose(error -> {
            if (LettuceErrors.unwrap(error) instanceof RedisNoScriptException) {
                // any master may lack the scripts: a promoted replica, a restarted or added node
                loadAllScripts();
                return commandOrder.send(() -> commands.<Object>eval(script.body(LuaScript.Variant.SHARDED), output,
                        keys, args));
            }
            return CompletableFuture.failedFuture(LettuceErrors.unwrap(error));
        })), script.fileName(), script.body(LuaScript.Variant.SHARDED));
    }

    /** SCRIPT LOAD of every script on every node (Lettuce's cluster SCRIPT LOAD goes to all of them). */
    private void loadAllScripts() {
        for (LuaScript script : LuaScript.values()) {
            commandOrder.send(() -> commands.scriptLoad(script.body(LuaScript.Variant.SHARDED)));
        }
    }

    /** The commands {@link CommandCheck} asks the cluster to run (on the node Lettuce picks), sent now. */
    public List<CommandCheck.Probe> commandProbes(boolean withWait) {
        return CommandCheck.send(commands, commandOrder, this::failingAsNode, withWait);
    }

    /**
     * SCAN on every master that serves slots, all at once. Not Lettuce's cluster SCAN: it walks every
     * master of the node table, and a master that failed over stays there (without slots) until it
     * is forgotten, so that SCAN fails for as long. When some masters fail and others answer, fails
     * with an {@link IncompleteScan} holding the keys found; when all fail, with the first failure.
     */
    @Override
    public CompletableFuture<List<String>> scan(String pattern) {
        List<RedisClusterNode> masters = connection.getPartitions().stream()
                .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty())
                .toList();
        List<CompletableFuture<List<String>>> scans = masters.stream().map(master -> scanMaster(master, pattern)).toList();
        return CompletableFuture.allOf(scans.toArray(CompletableFuture[]::new)).handle((done, ignored) -> {
            List<String> keys = new ArrayList<>();
            List<NodeFailure> failures = new ArrayList<>();
            for (CompletableFuture<List<String>> scan : scans) {
                try {
                    keys.addAll(scan.join());
                } catch (CompletionException | java.util.concurrent.CancellationException e) {
                    failures.add(LettuceErrors.translate(address, commandTimeoutMs, true, e));
                }
            }
            if (failures.isEmpty()) {
                return keys;
            }
            if (failures.size() == scans.size()) {
                throw failures.get(0);
            }
            throw new IncompleteScan(keys, failures, scans.size());
        });
    }

    private CompletableFuture<List<String>> scanMaster(RedisClusterNode master, String pattern) {
        RedisURI uri = master.getUri();
        String masterAddress = LettuceErrors.describe(uri);
        CompletableFuture<StatefulRedisConnection<String, String>> link =
                connection.getConnectionAsync(uri.getHost(), uri.getPort());
        CompletableFuture<List<String>> keys = link.thenCompose(node -> KeyScan.all(node.async(), pattern));
        return LettuceErrors.failingAsNode(keys, masterAddress, commandTimeoutMs,
                () -> link.isDone() && !link.isCompletedExceptionally() && link.join().isOpen());
    }

    @Override
    public int slot(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public CompletableFuture<Long> subscriberCount(String channel) {
        return failingAsNode(onSlotMaster(channel, node -> node.async().pubsubShardNumsub(channel).toCompletableFuture()
                .thenApply(counts -> counts.getOrDefault(channel, 0L))));
    }

    /**
     * WAIT on the connection to the key's slot master: the one Lettuce sends that slot's writes
     * through (the write connection of the master's host and port), so WAIT counts them.
     */
    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, Duration timeout) {
        return failingAsNode(commandOrder.send(() -> onSlotMaster(key,
                node -> node.async().waitForReplication(replicas, timeout.toMillis()).toCompletableFuture())));
    }

    private <T> CompletableFuture<T> onSlotMaster(String key,
                                                  Function<StatefulRedisConnection<String, String>, CompletableFuture<T>> command) {
        RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            return CompletableFuture.failedFuture(new NodeFailure(dev.dlock.NodeError.Cause.UNREACHABLE, address,
                    "no master known for the slot of '" + key + "'", null));
        }
        RedisURI uri = master.getUri();
        return connection.getConnectionAsync(uri.getHost(), uri.getPort()).thenCompose(command);
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return failingAsNode(pubSub.subscribe(channel));
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        return failingAsNode(pubSub.unsubscribe(channel));
    }

    @Override
    public void setListener(Listener listener) {
        pubSub.setListener(listener);
    }

    @Override
    public boolean isConnected() {
        return connection.isOpen();
    }

    @Override
    public void close() {
        try {
            pubSub.close();
            connection.close();
        } finally {
            shutDown();
        }
    }

    private void shutDown() {
        try {
            client.shutdownAsync(0, 1, TimeUnit.SECONDS).get(SHUTDOWN_BOUND_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception stuck) {
            // its connections are closed; what is left of the client is given up on
        }
    }

    private <T> CompletableFuture<T> failingAsNode(CompletableFuture<T> future) {
        return LettuceErrors.failingAsNode(future, address, commandTimeoutMs, this::isConnected);
    }

}
