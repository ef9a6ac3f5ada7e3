package dev.dlock.internal;

import java.util.concurrent.CompletableFuture;

/** A script with its keys and arguments, ready to run on any node. */
record ScriptCall(LuaScript script, String[] keys, String... args) {

    CompletableFuture<Object> on(RedisNode node) {
        return node.eval(script, keys, args);
    }
}
