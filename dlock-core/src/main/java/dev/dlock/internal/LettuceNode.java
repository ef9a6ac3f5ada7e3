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
import io.netty.util.concurrent.FastThreadLocalThread;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A {@link RedisNode} on Lettuce: one multiplexed connection for commands (EVALSHA from every
 * thread pipelines on it), one for pub/sub. Both reconnect by themselves; commands issued while
 * disconnected are buffered and fail by the command timeout if the link does not come back.
 *
 * <p>Each connection sends its commands in the order they were issued, whatever the thread (see
 * {@link InOrder}): the lock algorithms count on a command that follows another on a node (the
 * abandon of a refused Redlock attempt, a waiter's leave after its grant) reaching it second.
 */
public final class LettuceNode implements RedisNode {

    private static final long MAX_RECONNECT_DELAY_MS = 5000;

    private final RedisClient client;
    private final String address;
    private final InOrder commandOrder;
    private final InOrder pubSubOrder;
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
        this.commandOrder = new InOrder(resources.eventExecutorGroup().next());
        this.pubSubOrder = new InOrder(resources.eventExecutorGroup().next());
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
        CompletableFuture<Object> bySha = commandOrder.send(
                () -> commands.<Object>evalsha(script.sha1(), script.outputType(), keys, args));
        return bySha.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                loadAllScripts(commands);
                return commandOrder.send(() -> commands.<Object>eval(script.body(), script.outputType(), keys, args));
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
            commandOrder.send(() -> commands.scriptLoad(script.body()));
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
        return pubSubOrder.send(() -> pubSub.async().subscribe(channel));
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> pubSub = this.pubSub;
        if (pubSub == null) {
            return CompletableFuture.completedFuture(null);
        }
        return pubSubOrder.send(() -> pubSub.async().unsubscribe(channel));
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

    /**
     * Sends one connection's commands in the order they were issued. Netty writes a command issued
     * on the connection's I/O thread at once, but queues one issued on any other thread as a task
     * for that I/O thread; and one I/O thread serves several connections (a Redlock client's nodes
     * share two). So a command sent from a reply callback (on the I/O thread) could reach the
     * server before a command issued a moment earlier from another thread, still queued: the
     * abandon sent when a quorum refused an attempt reached a slow node before that attempt's
     * acquire, which then granted there and left a copy that nobody held or released until its
     * lease ended (FairLockTest caught it as a key left behind).
     *
     * <p>So commands issued on a Netty thread are handed to one writer thread, which is never an
     * I/O thread and issues them in turn; and while any are waiting for it, commands from other
     * threads queue behind them. Commands issued on other threads with nothing waiting (the common
     * case: a caller's acquire or release) are issued at once, without the hand-off.
     */
    private static final class InOrder {
        private final Executor writer;
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
        /** A drain of {@link #waiting} is scheduled or running; guarded by this. */
        private boolean draining;

        InOrder(Executor writer) {
            this.writer = writer;
        }

        <T> CompletableFuture<T> send(Supplier<? extends CompletionStage<T>> command) {
            CompletableFuture<T> sent = new CompletableFuture<>();
            synchronized (this) {
                if (draining || Thread.currentThread() instanceof FastThreadLocalThread) {
                    waiting.add(() -> issue(command, sent));
                    if (!draining) {
                        draining = true;
                        drainLater();
                    }
                    return sent;
                }
            }
            // nothing is waiting, so everything issued before this call has reached Netty's queue
            issue(command, sent);
            return sent;
        }

        private void drainLater() {
            try {
                writer.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // the client's resources are shut down: nothing will be sent any more
                drain();
            }
        }

        private void drain() {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = waiting.poll();
                    if (next == null) {
                        draining = false;
                        return;
                    }
                }
                next.run();
            }
        }

        private static <T> void issue(Supplier<? extends CompletionStage<T>> command, CompletableFuture<T> sent) {
            try {
                command.get().whenComplete((value, error) -> {
                    if (error != null) {
                        sent.completeExceptionally(error);
                    } else {
                        sent.complete(value);
                    }
                });
            } catch (RuntimeException e) {
                sent.completeExceptionally(e);
            }
        }
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
