package dev.dlock.internal.acquire;

import dev.dlock.internal.store.WakeUpSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The subscriptions shared by all waiters of a client: one per lock channel, counted by waiters,
 * on the store's {@link WakeUpSource}. A waiter takes the current {@link Channel#signal()}
 * before each acquire attempt; a release message completes that signal with the message, so a
 * release that lands between the attempt and the wait is not missed, and a fair waiter can tell a
 * handoff to someone else ("token:waiterId") from one to itself.
 *
 * <p>A store may deliver one message several times in a row (on Redlock every node publishes each
 * release, with the released token as message); only the first copy fires, so waiters retry once
 * per release, not once per node.
 */
public final class WakeUps implements WakeUpSource.Listener {

    private final WakeUpSource source;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    /** Channels with a handler of their own for every message (the client's holder channel), not waiters. */
    private final ConcurrentHashMap<String, Consumer<String>> handled = new ConcurrentHashMap<>();

    public WakeUps(WakeUpSource source) {
        this.source = source;
        source.setListener(this);
    }

    /** Joins the channel's waiters, subscribing when first. Pair with {@link #leave(Channel)}. */
    public Channel join(String channelName) {
        return channels.compute(channelName, (name, channel) -> {
            Channel joined = channel == null ? new Channel(name) : channel;
            if (joined.subscribed == null || joined.subscribed.isCompletedExceptionally()) {
                joined.subscribed = source.subscribe(name);
            }
            joined.waiters++;
            return joined;
        });
    }

    /**
     * Joins the channel's waiters only if it is subscribed already (confirmed by a node), so that
     * a first refusal can wait without subscribing and asking again; null otherwise.
     */
    public Channel joinIfSubscribed(String channelName) {
        if (channels.isEmpty()) {
            return null;
        }
        Channel[] joined = new Channel[1];
        channels.computeIfPresent(channelName, (name, channel) -> {
            CompletableFuture<Void> subscribed = channel.subscribed;
            if (subscribed != null && subscribed.isDone() && !subscribed.isCompletedExceptionally()) {
                channel.waiters++;
                joined[0] = channel;
            }
            return channel;
        });
        return joined[0];
    }

    /** Whether any waiter of this client is on the channel (so this client is subscribed to it, or about to be). */
    public boolean isJoined(String channelName) {
        return channels.containsKey(channelName);
    }

    public void leave(Channel channel) {
        channels.computeIfPresent(channel.name, (name, current) -> {
            if (current != channel || --current.waiters > 0) {
                return current;
            }
            source.unsubscribe(name);
            return null;
        });
    }

    /**
     * Subscribes for good (subscribed again after a reconnect) and hands each message to
     * {@code handler}, on the source's thread: it must not block.
     */
    public CompletableFuture<Void> listen(String channelName, Consumer<String> handler) {
        handled.put(channelName, handler);
        return source.subscribe(channelName);
    }

    @Override
    public void onMessage(String channelName, String message) {
        Consumer<String> handler = handled.get(channelName);
        if (handler != null) {
            handler.accept(message);
            return;
        }
        Channel channel = channels.get(channelName);
        if (channel != null) {
            channel.fire(message);
        }
    }

    /**
     * Fires every channel now (a release may have been missed while the link was down) and again
     * once the channel is subscribed anew by this client's own subscription: a link may subscribe
     * again by itself once it is up, and a release published in between would be lost, costing a
     * waiter the holder's whole lease.
     */
    @Override
    public void onReconnected() {
        channels.values().forEach(channel -> {
            channel.fire(null);
            source.subscribe(channel.name).whenComplete((ok, error) -> {
                if (channels.get(channel.name) == channel) {
                    channel.fire(null);
                }
            });
        });
        handled.keySet().forEach(source::subscribe);
    }

    public static final class Channel {
        final String name;
        int waiters;
        volatile CompletableFuture<Void> subscribed;
        private final AtomicReference<CompletableFuture<Message>> signal = new AtomicReference<>(new CompletableFuture<>());
        private final AtomicReference<String> lastMessage = new AtomicReference<>();

        private Channel(String name) {
            this.name = name;
        }

        /**
         * Completes with the next message after this call (its text null at a reconnect), which
         * leads on to the one after it: a waiter that looks at a message late, not meant for it,
         * goes on to the next message, not to whatever is current by then, and so misses none.
         */
        CompletableFuture<Message> signal() {
            return signal.get();
        }

        CompletableFuture<Void> subscribed() {
            return subscribed;
        }

        /** @param message null for "something may have been missed" (always fires) */
        void fire(String message) {
            if (message != null && message.equals(lastMessage.getAndSet(message))) {
                return;
            }
            CompletableFuture<Message> next = new CompletableFuture<>();
            signal.getAndSet(next).complete(new Message(message, next));
        }
    }

    /** One message on a channel, and the signal of the message after it. */
    public record Message(String text, CompletableFuture<Message> next) {
    }
}
