package dev.dlock.internal;

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
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link RedisNode} on Lettuce: one multiplexed connection for commands (EVALSHA from every
 * thread pipelines on it), one for pub/sub. Both reconnect by themselves; commands issued while
 * disconnected are buffered and fail by the command timeout if the link does not come back.
 */
public final class LettuceNode implements RedisNode {

    private final RedisClient client;
    private final String address;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private volatile Listener listener = new Listener() {
        @Override
        public void onMessage(String channel, String message) {
        }

        @Override
        public void onReconnected() {
        }
    };

    /**
     * Connects both links. Fails with a {@link dev.dlock.LockBackendException} naming the address
     * when the server cannot be reached or refuses the credentials.
     */
    public LettuceNode(ClientResources resources, RedisURI uri, Duration commandTimeout) {
        this.address = Failures.describe(uri);
        uri.setTimeout(commandTimeout);
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .build());
        try {
            this.connection = client.connect();
            this.commands = connection.async();
            this.pubSub = client.connectPubSub();
        } catch (RedisException e) {
            client.shutdown(Duration.ZERO, Duration.ZERO);
            throw Failures.cannotConnect(address, e);
        }
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                listener.onMessage(channel, message);
            }
        });
        pubSub.addListener(new ReconnectWatcher());
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
        CompletableFuture<Object> bySha = commands.<Object>evalsha(script.sha1(), script.outputType(), keys, args)
                .toCompletableFuture();
        return bySha.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                return commands.<Object>eval(script.body(), script.outputType(), keys, args).toCompletableFuture();
            }
            return CompletableFuture.failedFuture(unwrap(error));
        });
    }

    @Override
    public CompletableFuture<List<String>> scan(String pattern) {
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
        return commands.pubsubNumsub(channel).toCompletableFuture()
                .thenApply(counts -> counts.getOrDefault(channel, 0L));
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return pubSub.async().subscribe(channel).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        return pubSub.async().unsubscribe(channel).toCompletableFuture();
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
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
