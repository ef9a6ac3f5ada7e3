package dev.dlock.internal;

import dev.dlock.LockInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Reads locks for operators: one lock's {@link LockInfo}, or every held lock matching a name pattern. */
final class LockInspector {

    private final LockStore store;
    private final String keyPrefix;

    LockInspector(LockStore store, String keyPrefix) {
        this.store = store;
        this.keyPrefix = keyPrefix;
    }

    /** The lock's state as the kind sees it. */
    CompletableFuture<LockInfo> inspect(LockTarget target, LockKind kind) {
        CompletableFuture<Long> waiting = store.waitingClients(target).exceptionally(error -> 0L);
        return store.inspect(target, kind).thenCombine(waiting, (state, waitingClients) -> {
            if (!state.isHeld()) {
                return new LockInfo(target.name(), target.key(), Optional.empty(), 0, Duration.ZERO, 0, waitingClients,
                        Duration.ZERO);
            }
            return new LockInfo(target.name(), target.key(), Optional.of(ClientIdentity.parseHolder(state.holder())),
                    state.holdCount(), Duration.ofMillis(Math.max(0, state.pttlMs())), state.token(), waitingClients,
                    Duration.ofMillis(state.heldMs()));
        });
    }

    /** Every held lock whose name matches the glob {@code namePattern}, whatever its kind, sorted by name. */
    CompletableFuture<List<LockInfo>> list(String namePattern) {
        String keyPattern = escapeGlob(keyPrefix) + "{" + namePattern + "}";
        return store.scan(keyPattern).thenCompose(keys -> {
            List<CompletableFuture<LockInfo>> infos = new ArrayList<>();
            for (String key : keys) {
                String name = key.substring(keyPrefix.length() + 1, key.length() - 1);
                infos.add(inspect(LockTarget.of(keyPrefix, name), LockKind.anyHolderView()));
            }
            return CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new)).thenApply(done -> infos.stream()
                    .map(CompletableFuture::join)
                    .filter(LockInfo::isLocked)
                    .sorted(Comparator.comparing(LockInfo::name))
                    .toList());
        });
    }

    private static String escapeGlob(String text) {
        return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }
}
