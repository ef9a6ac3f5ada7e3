package dev.dlock.internal.redis;

import dev.dlock.LockHolder;
import dev.dlock.internal.store.ClientRecordEntry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What both Redis stores keep outside any lock: the client records
 * ({@code <prefix>client:<client id>}, record_holder.lua, read_holder.lua; a key of its own, in no
 * lock's slot) and the lock names behind the keys a SCAN finds.
 */
public final class RedisRecords {

    private final String keyPrefix;

    public RedisRecords(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    private String recordKey(String clientId) {
        return keyPrefix + "client:" + clientId;
    }

    /** Best effort on every node, ahead of the commands issued after it on the same connection. */
    public CompletableFuture<Void> write(List<RedisNode> nodes, ClientRecordEntry entry) {
        return onEvery(nodes, Scripts.recordHolder(recordKey(entry.clientId()), entry.clientName(), entry.host(),
                entry.pid(), entry.ttlMs(), entry.replace(), entry.threads()));
    }

    public CompletableFuture<Void> drop(List<RedisNode> nodes, String clientId) {
        return onEvery(nodes, Scripts.forgetHolder(recordKey(clientId)));
    }

    private static CompletableFuture<Void> onEvery(List<RedisNode> nodes, ScriptCall call) {
        return CompletableFuture.allOf(nodes.stream()
                .map(node -> call.on(node).exceptionally(error -> null))
                .toArray(CompletableFuture[]::new));
    }

    /** The first node's non-empty answer to read_holder.lua; empty when no node has the record or none answers. */
    public CompletableFuture<Optional<LockHolder>> read(List<RedisNode> nodes, String clientId, String threadId) {
        ScriptCall call = Scripts.readHolder(recordKey(clientId), threadId);
        List<CompletableFuture<Object>> replies = nodes.stream().map(call::on).toList();
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).handle((done, error) -> replies.stream()
                .filter(reply -> !reply.isCompletedExceptionally())
                .map(CompletableFuture::join)
                .map(reply -> (List<?>) reply)
                .filter(record -> record.size() >= 4)
                .findFirst()
                .map(RedisRecords::holder));
    }

    private static LockHolder holder(List<?> record) {
        long pid;
        try {
            pid = Long.parseLong(String.valueOf(record.get(2)));
        } catch (NumberFormatException e) {
            pid = -1;
        }
        return new LockHolder(String.valueOf(record.get(0)), String.valueOf(record.get(1)), pid,
                String.valueOf(record.get(3)));
    }

    /** The SCAN pattern of the lock keys whose names match the glob. */
    public String keyPattern(String namePattern) {
        return escapeGlob(keyPrefix) + "{" + namePattern + "}";
    }

    /** The lock names of the keys found with {@link #keyPattern}. */
    public List<String> names(List<String> keys) {
        return keys.stream().map(key -> key.substring(keyPrefix.length() + 1, key.length() - 1)).toList();
    }

    private static String escapeGlob(String text) {
        return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }
}
