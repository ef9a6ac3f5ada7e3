package dev.dlock.internal.lettuce;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Every key matching a glob, by SCAN page after page (never KEYS, which blocks the server). */
public final class KeyScan {

    private static final int PAGE = 1000;

    private KeyScan() {
    }

    /** On one server, or on a Cluster connection, whose SCAN walks every master in turn. */
    public static CompletableFuture<List<String>> all(RedisKeyAsyncCommands<String, String> commands, String pattern) {
        return from(commands, ScanCursor.INITIAL, ScanArgs.Builder.matches(pattern).limit(PAGE), new ArrayList<>());
    }

    private static CompletableFuture<List<String>> from(RedisKeyAsyncCommands<String, String> commands, ScanCursor cursor,
                                                        ScanArgs args, List<String> keys) {
        return commands.scan(cursor, args).toCompletableFuture().thenCompose(page -> {
            keys.addAll(page.getKeys());
            return page.isFinished() ? CompletableFuture.completedFuture(keys) : from(commands, page, args, keys);
        });
    }
}
