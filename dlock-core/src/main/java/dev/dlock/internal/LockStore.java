package dev.dlock.internal;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where locks live: one Redis ({@link SingleNodeStore}) or a Redlock quorum of independent masters
 * ({@link QuorumStore}). The acquire loop, the watchdog and the lock types talk to this interface
 * only, so every lock type works on both.
 *
 * <p>Futures fail with {@link dev.dlock.LockBackendException} whose message says what is known:
 * which node failed how, and whether the outcome is unknown; the same is carried as data
 * ({@link dev.dlock.LockBackendException#nodeErrors()}).
 */
interface LockStore extends AutoCloseable {

    /** The nodes, for pub/sub subscriptions. */
    List<RedisNode> nodes();

    /** The addresses, for messages. */
    String describe();

    /**
     * One attempt of the given kind. When its outcome is unknown (timeout) the store has already
     * sent a best-effort release of a fresh attempt before failing the future.
     */
    CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request);

    /** Gives back one hold: holds left ({@code > 0}), 0 when freed, -1 when the caller no longer owns it. */
    CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token);

    /** Local handoff, where this store supports it (one Redis); empty where a release is always a release. */
    default Optional<HandoffScript> handoffScript() {
        return Optional.empty();
    }

    /** Best effort: drops every hold of the owner. Never fails. */
    CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner);

    /**
     * Best effort: a waiter of a queued kind stops waiting, so its place in the queue (or its
     * waiting mark) goes at once instead of lapsing after the waiter timeout. Never fails.
     */
    CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId);

    /** Frees the lock whoever holds it, whatever its kind: true when it was held. */
    CompletableFuture<Boolean> forceRelease(LockTarget target);

    /** Extends the leases of the holds (of any kinds), all in as few round trips as possible. */
    CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs);

    /** The lock's state as the kind sees it (a read lock: its readers; a write lock: its writer). */
    CompletableFuture<LockState> inspect(LockTarget target, LockKind kind);

    /** Every live hold of the name, of any kind (a Redlock: each hold a quorum of the nodes has). */
    CompletableFuture<LockHolds> holds(LockTarget target);

    /** Connections waiting on the lock's channel (on a quorum: the most any node reports). */
    CompletableFuture<Long> waitingClients(LockTarget target);

    /**
     * Best effort, never fails: writes (or drops) a client record ({@link ClientRecord}) on every
     * node, ahead of the commands issued after it on the same connection; done when every node
     * answered or failed.
     */
    default CompletableFuture<Void> recordHolder(ScriptCall call) {
        return CompletableFuture.allOf(nodes().stream()
                .map(node -> call.on(node).exceptionally(error -> null))
                .toArray(CompletableFuture[]::new));
    }

    /**
     * Reads a client record ({@link ClientRecord}): the first node's non-empty answer to the
     * read_holder.lua call, or an empty list when no node has the record or none answers.
     */
    default CompletableFuture<List<?>> readHolder(ScriptCall call) {
        List<CompletableFuture<Object>> replies = nodes().stream().map(call::on).toList();
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).handle((done, error) -> replies.stream()
                .filter(reply -> !reply.isCompletedExceptionally())
                .map(CompletableFuture::join)
                .map(reply -> (List<?>) reply)
                .filter(record -> !record.isEmpty())
                .findFirst()
                .orElse(List.of()));
    }

    /** Keys matching the glob, from every reachable node. */
    CompletableFuture<List<String>> scan(String keyPattern);

    /** The validity left of a grant made at {@code startNanos} for {@code leaseMs}. */
    long validUntilNanos(long startNanos, long leaseMs);

    @Override
    void close();
}
