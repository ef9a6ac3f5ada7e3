package dev.dlock.internal.redis;

import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.NodeFailure;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The narrow view of one Redis server that the lock algorithms use: run a script, and subscribe to
 * release messages. Lock code never touches the Redis client library directly, so a single node
 * and a Redlock quorum of nodes share one acquire loop.
 *
 * <p>Every future completes within the command timeout: with the reply, or exceptionally with a
 * {@link NodeFailure} saying what kind of failure it was (timeout, unreachable, error reply, wrong
 * type); the client library's own exception, if any, is its cause. {@link Failures} describes it
 * to users.
 */
public interface RedisNode extends AutoCloseable {

    /** Where this node lives, for messages: {@code redis://host:port} without credentials. */
    String address();

    /** Runs a script by SHA, sending its body once when the server answers NOSCRIPT. */
    CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args);

    /**
     * WAIT: how many replicas acknowledged every write this node's command connection made so far,
     * sent on that connection in order after the commands issued before it (so after a grant whose
     * reply has arrived). Answers with the count once {@code replicas} acknowledged or the timeout
     * passed, whichever is first; the commands issued after it wait behind it.
     *
     * @param key     a key of the lock whose write is awaited, so that a node over several
     *                servers (Cluster) sends the WAIT to the one that holds it
     * @param timeout at least 1 ms (WAIT 0 blocks for ever)
     */
    CompletableFuture<Long> waitForReplicas(String key, int replicas, java.time.Duration timeout);

    /** Every key matching the glob pattern, by SCAN (never KEYS, which blocks the server). */
    CompletableFuture<List<String>> scan(String pattern);

    /**
     * The Redis Cluster hash slot of the key: keys of one script call must share one. A node
     * without slots says 0 for every key, so any keys may go into one call.
     */
    default int slot(String key) {
        return 0;
    }

    /** How many connections are subscribed to the channel (PUBSUB NUMSUB; on Cluster SHARDNUMSUB). */
    CompletableFuture<Long> subscriberCount(String channel);

    CompletableFuture<Void> subscribe(String channel);

    CompletableFuture<Void> unsubscribe(String channel);

    /** Receives every message of every subscribed channel, and reconnects of the pub/sub link. */
    void setListener(Listener listener);

    /** Whether the command connection is up right now (for error messages). */
    boolean isConnected();

    @Override
    void close();

    public interface Listener {

        /** Hears nothing: a node's listener until one is set. */
        Listener NONE = new Listener() {
            @Override
            public void onMessage(String channel, String message) {
            }

            @Override
            public void onReconnected() {
            }
        };

        void onMessage(String channel, String message);

        /** The pub/sub link came back after a disconnect: a release may have been missed. */
        void onReconnected();
    }
}
