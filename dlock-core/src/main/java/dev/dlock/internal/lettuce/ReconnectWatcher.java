package dev.dlock.internal.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/** Runs its task at every connect of a link after the first one: a message may have been missed. */
final class ReconnectWatcher implements RedisConnectionStateListener {

    private final AtomicBoolean disconnectedOnce = new AtomicBoolean();
    private final Runnable onReconnected;

    ReconnectWatcher(Runnable onReconnected) {
        this.onReconnected = onReconnected;
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        disconnectedOnce.set(true);
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress socketAddress) {
        if (disconnectedOnce.get()) {
            onReconnected.run();
        }
    }
}
