package dev.dlock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Pub/sub subscriptions shared by all waiters of a client: one per lock channel, counted by
 * waiters, on one pub/sub connection. A waiter takes the current {@link Channel#signal()} before
 * each acquire attempt; a release message completes that signal, so a release that lands between
 * the attempt and the wait is not missed.
 */
final class WakeUps implements RedisNode.Listener {

    private final RedisNode node;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();

    WakeUps(RedisNode node) {
        this.node = node;
        node.setListener(this);
    }

    /** Joins the channel's waiters, subscribing when first. Pair with {@link #leave(Channel)}. */
    Channel join(String channelName) {
        return channels.compute(channelName, (name, channel) -> {
            Channel joined = channel == null ? new Channel(name) : channel;
            if (joined.subscribed == null || joined.subscribed.isCompletedExceptionally()) {
                joined.subscribed = node.subscribe(name);
            }
            joined.waiters++;
            return joined;
        });
    }

    void leave(Channel channel) {
        channels.computeIfPresent(channel.name, (name, current) -> {
            if (current != channel || --current.waiters > 0) {
                return current;
            }
            node.unsubscribe(name);
            return null;
        });
    }

    @Override
    public void onMessage(String channelName) {
        Channel channel = channels.get(channelName);
        if (channel != null) {
            channel.fire();
        }
    }

    @Override
    public void onReconnected() {
        channels.values().forEach(Channel::fire);
    }

    static final class Channel {
        final String name;
        int waiters;
        volatile CompletableFuture<Void> subscribed;
        private final AtomicReference<CompletableFuture<Void>> signal = new AtomicReference<>(new CompletableFuture<>());

        private Channel(String name) {
            this.name = name;
        }

        /** Completes at the next message (or reconnect) after this call. */
        CompletableFuture<Void> signal() {
            return signal.get();
        }

        CompletableFuture<Void> subscribed() {
            return subscribed;
        }

        void fire() {
            signal.getAndSet(new CompletableFuture<>()).complete(null);
        }
    }
}
