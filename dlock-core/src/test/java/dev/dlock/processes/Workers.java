package dev.dlock.processes;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.RedisStore;
import io.lettuce.core.api.sync.RedisCommands;

/** What the worker processes share: how they reach the locks' Redis, and the start barrier. */
final class Workers {

    private static final long GO_TIMEOUT_SECONDS = 60;

    private Workers() {
    }

    /**
     * @param uris one Redis URI, or several separated by commas (Redlock over those masters)
     * @return a builder of a client on them, every other setting the library's default
     */
    static LockClientBuilder clientOn(String uris) {
        String[] each = uris.split(",");
        return each.length > 1 ? LockClient.builder().store(RedisStore.redlock(each)) : LockClient.builder().store(RedisStore.standalone(each[0]));
    }

    /**
     * The start barrier: pushes this process's pid to {@code <prefix>:ready}, then waits for the
     * test's go ({@code BLPOP <prefix>:go}), so that the workers' runs overlap even when one JVM
     * starts much later than another on a loaded machine.
     *
     * @throws IllegalStateException no go within 60 s
     */
    static void awaitGo(RedisCommands<String, String> commands, String prefix) {
        commands.rpush(prefix + ":ready", Long.toString(ProcessHandle.current().pid()));
        if (commands.blpop(GO_TIMEOUT_SECONDS, prefix + ":go") == null) {
            throw new IllegalStateException("no go signal within " + GO_TIMEOUT_SECONDS + " s");
        }
    }
}
