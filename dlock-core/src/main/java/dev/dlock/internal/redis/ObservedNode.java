package dev.dlock.internal.redis;

import dev.dlock.LockObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A node whose script calls are reported to the client's observer (script name, time, whether
 * Redis replied), as the client sees them: a NOSCRIPT reload inside the call is part of it. On
 * Redlock every master is wrapped, so each node's call is one report. Everything else is passed
 * through as it is.
 */
public final class ObservedNode implements RedisNode {

    private static final String[] NAMES = scriptNames();

    private final RedisNode node;
    private final LockObserver observer;

    public ObservedNode(RedisNode node, LockObserver observer) {
        this.node = node;
        this.observer = observer;
    }

    private static String[] scriptNames() {
        LuaScript[] scripts = LuaScript.values();
        String[] names = new String[scripts.length];
        for (LuaScript script : scripts) {
            String file = script.fileName();
            names[script.ordinal()] = file.substring(0, file.length() - ".lua".length());
        }
        return names;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, String[] keys, String... args) {
        long startNanos = System.nanoTime();
        CompletableFuture<Object> reply = node.eval(script, keys, args);
        reply.whenComplete((ok, error) -> observer.scriptCall(NAMES[script.ordinal()], System.nanoTime() - startNanos,
                error == null));
        return reply;
    }

    @Override
    public String address() {
        return node.address();
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, Duration timeout) {
        return node.waitForReplicas(key, replicas, timeout);
    }

    @Override
    public CompletableFuture<List<String>> scan(String pattern) {
        return node.scan(pattern);
    }

    @Override
    public int slot(String key) {
        return node.slot(key);
    }

    @Override
    public CompletableFuture<Long> subscriberCount(String channel) {
        return node.subscriberCount(channel);
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return node.subscribe(channel);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        return node.unsubscribe(channel);
    }

    @Override
    public void setListener(Listener listener) {
        node.setListener(listener);
    }

    @Override
    public boolean isConnected() {
        return node.isConnected();
    }

    @Override
    public void close() {
        node.close();
    }

    @Override
    public String toString() {
        return node.toString();
    }
}
