package dev.dlock.internal;

import dev.dlock.LockBackendException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link RedisNode} on Lettuce: one multiplexed connection for commands (EVALSHA from every
 * thread pipelines on it), one for pub/sub. Both reconnect by themselves; commands issued while
 * disconnected are buffered and fail by the command timeout if the link does not come back.
 */
public final class LettuceNode implements RedisNode {

    private static final long MAX_RECONNECT_DELAY_MS = 5000;

    private final RedisClient client;
    private final String address;
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile RedisAsyncCommands<String, String> commands;
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    private volatile LockBackendException notConnected;
    private volatile boolean closed;
    private volatile Listener listener = new Listener() {
        @Override
        public void onMessage(String channel, String message) {
        }

        @Override
        public void onReconnected() {
        }
    };

    /**
     * Connects both links. Fails with a {@link LockBackendException} naming the address when the
     * server cannot be reached or refuses the credentials, unless {@code keepTrying}: then every
     * call fails fast with that reason while a background task retries the first connect (a
     * Redlock client starts with a minority of its nodes down).
     */
    public LettuceNode(ClientResources resources, RedisURI uri, Duration commandTimeout, boolean keepTrying) {
        this.address = Failures.describe(uri);
        uri.setTimeout(commandTimeout);
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .build());
        try {
            connect();
        } catch (RedisException e) {
            notConnected = Failures.cannotConnect(address, e);
            if (!keepTrying) {
                client.shutdown(Duration.ZERO, Duration.ZERO);
                throw notConnected;
            }
            retryConnect(100);
        }
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
        pubSubLink.addListener(new ReconnectWatcher());
        this.connection = commandLink;
        this.pubSub = pubSubLink;
        this.commands = commandLink.async();
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
                notConnected = Failures.cannotConnect(address, e);
                retryConnect(Math.min(MAX_RECONNECT_DELAY_MS, delayMs * 2));
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
        if (commands == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        CompletableFuture<Object> bySha = commands.<Object>evalsha(script.sha1(), script.outputType(), keys, args)
                .toCompletableFuture();
        return bySha.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                loadAllScripts(commands);
                return commands.<Object>eval(script.body(), script.outputType(), keys, args).toCompletableFuture();
            }
            return CompletableFuture.failedFuture(unwrap(error));
        });
    }

    /**
     * One NOSCRIPT means the server's script cache is empty (restarted, failed over, flushed): load
     * every script at once so that the calls already on their way do not all fail the same way.
     */
    private void loadAllScripts(RedisAsyncCommands<String, String> commands) {
        for (LuaScript script : LuaScript.values()) {
            commands.scriptLoad(script.body());
        }
    }

    @Override
    public CompletableFuture<List<String>> scan(String pattern) {
        if (commands == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        List<String> keys = new ArrayList<>();
        return scanFrom(ScanCursor.INITIAL, ScanArgs.Builder.matches(pattern).limit(1000), keys);
    }

    private CompletableFuture<List<String>> scanFrom(ScanCursor cursor, ScanArgs args, List<String> keys) {
        return commands.scan(cursor, args).toCompletableFuture().thenCompose(page -> {
            keys.addAll(page.getKeys());
            return page.isFinished() ? CompletableFuture.completedFuture(keys) : scanFrom(page, args, keys);
        });
    }

    @Override
    public CompletableFuture<Long> subscriberCount(String channel) {
        RedisAsyncCommands<String, String> commands = this.commands;
        if (commands == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        return commands.pubsubNumsub(channel).toCompletableFuture()
                .thenApply(counts -> counts.getOrDefault(channel, 0L));
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> pubSub = this.pubSub;
        if (pubSub == null) {
            return CompletableFuture.failedFuture(notConnected);
        }
        return pubSub.async().subscribe(channel).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> pubSub = this.pubSub;
        if (pubSub == null) {
            return CompletableFuture.completedFuture(null);
        }
        return pubSub.async().unsubscribe(channel).toCompletableFuture();
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

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** Tells the listener of every pub/sub connect after the first one. */
    private final class ReconnectWatcher implements RedisConnectionStateListener {
        private final AtomicBoolean disconnectedOnce = new AtomicBoolean();

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
            disconnectedOnce.set(true);
        }

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
            if (disconnectedOnce.get()) {
                listener.onReconnected();
            }
        }
    }
}
