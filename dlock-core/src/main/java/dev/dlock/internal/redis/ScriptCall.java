package dev.dlock.internal.redis;

import java.util.concurrent.CompletableFuture;

/** A script with its keys and arguments, ready to run on any node. */
public record ScriptCall(LuaScript script, String[] keys, String... args) {

    public CompletableFuture<Object> on(RedisNode node) {
        return node.eval(script, keys, args);
    }
}
