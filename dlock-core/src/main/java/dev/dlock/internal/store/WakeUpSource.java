package dev.dlock.internal.store;

import java.util.concurrent.CompletableFuture;

/**
 * Where a client is told of releases (on a lock's channel, {@link LockTarget#channel()}) and of
 * its own holds' forced releases and handoffs (on its client channel, {@link #clientChannel}). A
 * store has one per client; the client's waiters share its subscriptions.
 */
public interface WakeUpSource {

    /** The channel of one client's notices: forced releases ("key\towner") and handoffs to its waiters. */
    static String clientChannel(String keyPrefix, String clientId) {
        return keyPrefix + "client:{" + clientId + "}";
    }

    /** Subscribes: completes once a message published from now on reaches the listener. */
    CompletableFuture<Void> subscribe(String channel);

    /** Best effort; messages may still arrive for a while. */
    void unsubscribe(String channel);

    /** Receives every message of every subscribed channel; set once, before the first subscription. */
    void setListener(Listener listener);

    public interface Listener {
        void onMessage(String channel, String message);

        /** The link came back after a disconnect: a release may have been missed. */
        void onReconnected();
    }
}
