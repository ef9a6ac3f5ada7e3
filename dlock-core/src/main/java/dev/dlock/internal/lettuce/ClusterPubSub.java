package dev.dlock.internal.lettuce;

import dev.dlock.internal.redis.RedisNode;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The wake-up channels of a {@link ClusterNode}: sharded pub/sub (SSUBSCRIBE), which Lettuce's
 * cluster pub/sub connection sends to the master of each channel's slot.
 *
 * <p>Lettuce does not move a shard subscription when its slot changes master (failover or
 * resharding): the promoted master has no subscriber, so releases there would wake nobody. So
 * after every topology change Lettuce reports, and after a pub/sub link to a node reconnects, every
 * joined channel is subscribed again (to its slot's master now) and the listener hears
 * {@link RedisNode.Listener#onReconnected()}: a release may have been missed meanwhile.
 */
public final class ClusterPubSub {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterPubSub.class);
    /** A topology change is announced before every connection has taken it in: resubscribe a little later. */
    private static final long RESUBSCRIBE_DELAY_MS = 50;

    private final StatefulRedisClusterPubSubConnection<String, String> connection;
    private final CommandOrder order;
    private final Set<String> channels = ConcurrentHashMap.newKeySet();
    /** Pub/sub links to nodes that are down now; weak, so that links Lettuce gave up on can go. */
    private final Set<RedisChannelHandler<?, ?>> disconnected = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));
    private final Disposable topologyChanges;
    private volatile RedisNode.Listener listener;
    private volatile boolean closed;

    public ClusterPubSub(RedisClusterClient client, ClientResources resources) {
        this.order = new CommandOrder(resources.eventExecutorGroup().next());
        this.connection = client.connectPubSub();
        connection.addListener(new RedisClusterPubSubAdapter<>() {
            @Override
            public void smessage(RedisClusterNode node, String channel, String message) {
                RedisNode.Listener listener = ClusterPubSub.this.listener;
                if (listener != null) {
                    listener.onMessage(channel, message);
                }
            }
        });
        client.addListener(new LinkWatcher());
        this.topologyChanges = resources.eventBus().get()
                .filter(ClusterTopologyChangedEvent.class::isInstance)
                .subscribe(change -> resubscribeLater());
    }

    public CompletableFuture<Void> subscribe(String channel) {
        channels.add(channel);
        return order.send(() -> connection.async().ssubscribe(channel));
    }

    public CompletableFuture<Void> unsubscribe(String channel) {
        channels.remove(channel);
        return order.send(() -> connection.async().sunsubscribe(channel));
    }

    public void setListener(RedisNode.Listener listener) {
        this.listener = listener;
    }

    public void close() {
        closed = true;
        topologyChanges.dispose();
        connection.close();
    }

    private void resubscribeLater() {
        if (closed) {
            return;
        }
        CompletableFuture.runAsync(this::resubscribe,
                CompletableFuture.delayedExecutor(RESUBSCRIBE_DELAY_MS, TimeUnit.MILLISECONDS));
    }

    /** Every joined channel to its slot's master now; then the waiters ask again. */
    private void resubscribe() {
        if (closed) {
            return;
        }
        CompletableFuture<?>[] sent = channels.stream()
                .map(channel -> order.send(() -> connection.async().ssubscribe(channel)).exceptionally(error -> {
                    LOG.debug("could not subscribe again to {}: {}", channel, error.toString());
                    return null;
                }))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(sent).whenComplete((ok, error) -> {
            RedisNode.Listener listener = this.listener;
            if (listener != null && !closed) {
                listener.onReconnected();
            }
        });
    }

    /** Resubscribes when a pub/sub link to a node comes back after a disconnect. */
    private final class LinkWatcher implements RedisConnectionStateListener {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
            if (handler instanceof StatefulRedisPubSubConnection) {
                disconnected.add(handler);
            }
        }

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
            if (disconnected.remove(handler)) {
                resubscribeLater();
            }
        }
    }
}
