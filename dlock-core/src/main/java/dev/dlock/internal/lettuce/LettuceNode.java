package dev.dlock.internal.lettuce;

import dev.dlock.NodeError;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.internal.redis.RedisNode;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.store.NodeFailure;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link RedisNode} on Lettuce: one multiplexed connection for commands (EVALSHA from every
 * thread pipelines on it), one for pub/sub. Both reconnect by themselves; commands issued while
 * disconnected are buffered and fail by the command timeout if the link does not come back.
 *
 * <p>Each connection sends its commands in the order they were issued, whatever the thread (see
 * {@link CommandOrder}): the lock algorithms count on a command that follows another on a node (the
 * abandon of a refused Redlock attempt, a waiter's leave after its grant) reaching it second.
 *
 * <p>Every failed future fails with a {@link NodeFailure} ({@link LettuceErrors}): nothing outside
 * this adapter sees a Lettuce exception type.
 */
public final class LettuceNode implements RedisNode {

    /**
     * The least time a connection's set-up (TCP, HELLO, CLIENT SETNAME; on a Cluster also the topology
     * refreshes' CLUSTER NODES from every node) gets. It takes several round trips and is rare; bounded
     * by one command's timeout (200 ms for a short lease, or a quarter of a 3 s lease: 750 ms), clients
     * on a loaded machine could not connect at all, and a fault campaign's cluster clients failed every
     * refresh and reconnect after a failover and accepted no write for 60 s although every node answered.
     * Every call keeps the command timeout.
     */
    static final Duration CONNECT_FLOOR = Duration.ofSeconds(3);

    /** @return the timeout of a connection's set-up for {@code commandTimeout}: at least {@link #CONNECT_FLOOR} */
    static Duration connectTimeout(Duration commandTimeout) {
        return commandTimeout.compareTo(CONNECT_FLOOR) < 0 ? CONNECT_FLOOR : commandTimeout;
    }

    private final RedisClient client;
    private final String address;
    private final CommandOrder commandOrder;
    private final CommandOrder pubSubOrder;
    private final long firstRetryDelayMs;
    private final long maxRetryDelayMs;
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile RedisAsyncCommands<String, String> commands;
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    private final long commandTimeoutMs;
    private volatile NodeFailure notConnected;
    private volatile boolean closed;
    private final SentinelFollower sentinelFollower;
    /** Outside a Redlock null; in one, how this node's server is told apart from the other nodes'. */
    private final ServerIdentity identity;
    /** Outside a Redlock null; in one, whether this node's calls may be sent and its replies counted. */
    private final RedlockAdmission admission;
    private volatile Listener listener = Listener.NONE;

    /**
     * Connects both links. Fails with a {@link LockBackendException} naming the address when the
     * server cannot be reached or refuses the credentials, unless {@code keepTrying}: then every
     * call fails fast with that reason while a background task retries the first connect (a
     * Redlock client starts with a minority of its nodes down), as often as the settings'
     * reconnect delays allow.
     */
    public LettuceNode(ClientResources resources, RedisURI uri, Settings settings, boolean keepTrying) {
        this(resources, uri, settings, keepTrying, null);
    }

    /**
     * A Redlock node: as above, and its server is identified ({@link DistinctServers}) at every
     * connect, before the first call is let through, and after every reconnect.
     *
     * @param distinctServers the Redlock's servers, or null outside a Redlock
     */
    LettuceNode(ClientResources resources, RedisURI uri, Settings settings, boolean keepTrying,
                DistinctServers distinctServers) {
        Duration commandTimeout = settings.commandTimeout();
        this.firstRetryDelayMs = settings.firstReconnectDelay().toMillis();
        this.maxRetryDelayMs = settings.maxReconnectDelay().toMillis();
        this.address = LettuceErrors.describe(uri);
        this.commandTimeoutMs = commandTimeout.toMillis();
        this.admission = distinctServers == null ? null : new RedlockAdmission(address);
        this.identity = distinctServers == null ? null
                : new ServerIdentity(address, commandTimeoutMs, distinctServers, admission);
        // every command keeps the command timeout (TimeoutOptions); the URI's timeout bounds a connection's set-up
        Duration connectTimeout = connectTimeout(commandTimeout);
        uri.setTimeout(connectTimeout);
        this.client = new AsyncOnlyRedisClient(resources, uri);
        this.commandOrder = new CommandOrder(resources.eventExecutorGroup().next());
        this.pubSubOrder = new CommandOrder(resources.eventExecutorGroup().next());
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
                .build());
        try {
            connect();
        } catch (RedisException e) {
            notConnected = LettuceErrors.translate(address, commandTimeoutMs, false, e);
            if (!keepTrying) {
                client.shutdown(Duration.ZERO, Duration.ZERO);
                throw LettuceErrors.cannotConnect(notConnected);
            }
            retryConnect(firstRetryDelayMs);
        }
        this.sentinelFollower = uri.getSentinels().isEmpty() ? null
                : new SentinelFollower(resources, uri, commandTimeout, this::dropLinks);
    }

    /** Makes both links reconnect, which re-resolves the master of a Sentinel URI. */
    private void dropLinks() {
        SentinelFollower.dropLink(connection);
        SentinelFollower.dropLink(pubSub);
    }

    /** Whether the first connect has succeeded (later disconnects are Lettuce's to repair). */
    public boolean hasConnected() {
        return commands != null;
    }

    private void connect() {
        StatefulRedisConnection<String, String> commandLink = client.connect();
        StatefulRedisPubSubConnection<String, String> pubSubLink;
        try {
            pubSubLink = client.connectPubSub();
        } catch (RedisException e) {
            commandLink.close();
            throw e;
        }
        pubSubLink.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                listener.onMessage(channel, message);
            }
        });
        pubSubLink.addListener(new ReconnectWatcher(() -> listener.onReconnected()));
        if (identity != null) {
            try {
                identity.identifyAtConnect(commandLink);
            } catch (RedisException e) {
                closeLinks(commandLink, pubSubLink);
                throw e;
            }
        }
        this.connection = commandLink;
        this.pubSub = pubSubLink;
        this.commands = commandLink.async();
    }

    private static void closeLinks(StatefulRedisConnection<String, String> commandLink,
                                   StatefulRedisPubSubConnection<String, String> pubSubLink) {
        pubSubLink.close();
        commandLink.close();
    }

    private void retryConnect(long delayMs) {
        CompletableFuture.runAsync(() -> {
            if (closed) {
                return;
            }
            try {
                connect();
                listener.onReconnected();
            } catch (RedisException e) {
                notConnected = LettuceErrors.translate(address, commandTimeoutMs, false, e);
                retryConnect(Math.min(maxRetryDelayMs, delayMs * 2));
            }
        }, CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS));
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
        RedisAsyncCommands<String, String> commands = this.commands;
        NodeFailure refused = commands == null ? notConnected
                : admission == null ? null : admission.refusal(script.givesBackOnly());
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        if (admission == null) {
            return send(commands, script, keys, args);
        }
        return admission.send(() -> send(commands, script, keys, args), script.givesBackOnly(), commandTimeoutMs);
    }

    private CompletableFuture<Object> send(RedisAsyncCommands<String, String> commands, LuaScript script,
                                           String[] keys, String... args) {
        ScriptOutputType output = script.output() == LuaScript.Output.INTEGER ? ScriptOutputType.INTEGER
                : ScriptOutputType.MULTI;
        CompletableFuture<Object> bySha = commandOrder.send(
                () -> commands.<Object>evalsha(script.sha1(), output, keys, args));
        return AclRefusals.named(failingAsNode(bySha.exceptionallyCompose(error -> {
            if (LettuceErrors.unwrap(error) instanceof RedisNoScriptException) {
                loadAllScripts(commands);
                return commandOrder.send(() -> commands.<Object>eval(script.body(), output, keys, args));
            }
            return CompletableFuture.failedFuture(LettuceErrors.unwrap(error));
        })), script.fileName(), script.body());
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, Duration timeout) {
        RedisAsyncCommands<String, String> commands = this.commands;
        if (commands == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        return failingAsNode(commandOrder.send(() -> commands.waitForReplication(replicas, timeout.toMillis())));
    }

    /**
     * One NOSCRIPT means the server's script cache is empty (restarted, failed over, flushed): load
     * every script at once so that the calls already on their way do not all fail the same way.
     */
    private void loadAllScripts(RedisAsyncCommands<String, String> commands) {
        for (LuaScript script : LuaScript.values()) {
            commandOrder.send(() -> commands.scriptLoad(script.body()));
        }
    }

    /** The commands {@link CommandCheck} asks this server to run, sent now. */
    public List<CommandCheck.Probe> commandProbes(boolean withWait) {
        RedisAsyncCommands<String, String> commands = this.commands;
        return CommandCheck.send(commands, commandOrder, this::failingAsNode, withWait);
    }

    /**
     * CONFIG GET of the given parameters, for {@link PersistenceCheck}; fails where the server
     * refuses CONFIG (managed Redis, ACLs) or before the first connect.
     */
    public CompletableFuture<Map<String, String>> configGet(String... parameters) {
        RedisAsyncCommands<String, String> commands = this.commands;
        if (commands == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        return commandOrder.send(() -> commands.configGet(parameters));
    }

    @Override
    public CompletableFuture<List<String>> scan(String pattern) {
        NodeFailure refused = refusal();
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        return failingAsNode(KeyScan.all(commands, pattern));
    }

    @Override
    public CompletableFuture<Long> subscriberCount(String channel) {
        RedisAsyncCommands<String, String> commands = this.commands;
        if (commands == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        return failingAsNode(commands.pubsubNumsub(channel).toCompletableFuture()
                .thenApply(counts -> counts.getOrDefault(channel, 0L)));
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> pubSub = this.pubSub;
        if (pubSub == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        return failingAsNode(pubSubOrder.send(() -> pubSub.async().subscribe(channel)));
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> pubSub = this.pubSub;
        if (pubSub == null) {
            return CompletableFuture.completedFuture(null);
        }
        return failingAsNode(pubSubOrder.send(() -> pubSub.async().unsubscribe(channel)));
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public boolean isConnected() {
        StatefulRedisConnection<String, String> connection = this.connection;
        return connection != null && connection.isOpen();
    }

    @Override
    public void close() {
        closed = true;
        try {
            if (sentinelFollower != null) {
                sentinelFollower.close();
            }
            if (pubSub != null) {
                pubSub.close();
            }
            if (connection != null) {
                connection.close();
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /**
     * Why a lock call cannot be sent now: not connected yet, reconnected to a server not identified
     * yet, or the same server as another Redlock node; null when it can.
     */
    private NodeFailure refusal() {
        if (commands == null) {
            return notConnected;
        }
        return admission == null ? null : admission.refusalWithoutHoldingBack(isConnected());
    }

    /** The same future, failing with a {@link NodeFailure} instead of the client library's exception. */
    private <T> CompletableFuture<T> failingAsNode(CompletableFuture<T> future) {
        return LettuceErrors.failingAsNode(future, address, commandTimeoutMs, this::isConnected);
    }
}
