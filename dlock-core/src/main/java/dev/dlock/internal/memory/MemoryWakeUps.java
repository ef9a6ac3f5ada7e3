package dev.dlock.internal.memory;

import dev.dlock.internal.store.WakeUpSource;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One in-memory client's subscriptions: messages reach its listener on the client's store thread,
 * in the order they were published.
 */
public final class MemoryWakeUps implements WakeUpSource {

    private final MemorySpace space;
    private final Executor thread;
    private final Set<String> subscribed = ConcurrentHashMap.newKeySet();
    private volatile Listener listener;

    public MemoryWakeUps(MemorySpace space, Executor thread) {
        this.space = space;
        this.thread = thread;
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        subscribed.add(channel);
        space.subscribe(channel, this);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void unsubscribe(String channel) {
        subscribed.remove(channel);
        space.unsubscribe(channel, this);
    }

    public void deliver(String channel, String message) {
        thread.execute(() -> {
            Listener current = listener;
            if (current != null && subscribed.contains(channel)) {
                current.onMessage(channel, message);
            }
        });
    }

    public void close() {
        subscribed.forEach(channel -> space.unsubscribe(channel, this));
        subscribed.clear();
    }
}
