package dev.dlock.internal.redis;

import dev.dlock.LockBackendException;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.WakeUpSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Redis pub/sub as a client's {@link WakeUpSource}: every channel on every node's pub/sub link. A
 * subscription is ready once one node confirms, since a message from any node wakes the waiter and
 * every wait is bounded by the holder's lease anyway. On Redlock every node publishes each release,
 * with the released token as message, so waiters see copies of one message in a row.
 */
public final class RedisWakeUps implements WakeUpSource, RedisNode.Listener {

    private final List<RedisNode> nodes;
    private final long subscribeTimeoutMs;
    private volatile Listener listener;

    public RedisWakeUps(List<RedisNode> nodes, long subscribeTimeoutMs) {
        this.nodes = nodes;
        this.subscribeTimeoutMs = subscribeTimeoutMs;
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
        nodes.forEach(node -> node.setListener(this));
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        if (nodes.size() == 1) {
            return nodes.get(0).subscribe(channel);
        }
        CompletableFuture<Void> ready = new CompletableFuture<>();
        AtomicInteger failed = new AtomicInteger();
        for (RedisNode node : nodes) {
            node.subscribe(channel).orTimeout(subscribeTimeoutMs, TimeUnit.MILLISECONDS).whenComplete((ok, error) -> {
                if (error == null) {
                    ready.complete(null);
                } else if (failed.incrementAndGet() == nodes.size()) {
                    ready.completeExceptionally(new LockBackendException("cannot wait for lock channel '" + channel
                            + "': no node accepted the subscription; last failure: " + Failures.unwrap(error)));
                }
            });
        }
        return ready;
    }

    @Override
    public void unsubscribe(String channel) {
        nodes.forEach(node -> node.unsubscribe(channel));
    }

    @Override
    public void onMessage(String channel, String message) {
        Listener current = listener;
        if (current != null) {
            current.onMessage(channel, message);
        }
    }

    @Override
    public void onReconnected() {
        Listener current = listener;
        if (current != null) {
            current.onReconnected();
        }
    }
}
