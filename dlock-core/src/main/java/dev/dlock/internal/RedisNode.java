package dev.dlock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The narrow view of one Redis server that the lock algorithms use: run a script, and subscribe to
 * release messages. Lock code never touches the Redis client library directly, so a single node
 * and a Redlock quorum of nodes share one acquire loop.
 *
 * <p>Every future completes within the command timeout: with the reply, or exceptionally with the
 * client library's exception (see {@link Failures} for how it is described to users).
 */
public interface RedisNode extends AutoCloseable {

    /** Where this node lives, for messages: {@code redis://host:port} without credentials. */
    String address();

    /** Runs a script by SHA, sending its body once when the server answers NOSCRIPT. */
    CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args);

    /** Every key matching the glob pattern, by SCAN (never KEYS, which blocks the server). */
    CompletableFuture<List<String>> scan(String pattern);

    /** How many connections are subscribed to the channel (PUBSUB NUMSUB). */
    CompletableFuture<Long> subscriberCount(String channel);

    CompletableFuture<Void> subscribe(String channel);

    CompletableFuture<Void> unsubscribe(String channel);

    /** Receives every message of every subscribed channel, and reconnects of the pub/sub link. */
    void setListener(Listener listener);

    /** Whether the command connection is up right now (for error messages). */
    boolean isConnected();

    @Override
    void close();

    interface Listener {
        void onMessage(String channel, String message);

        /** The pub/sub link came back after a disconnect: a release may have been missed. */
        void onReconnected();
    }
}
