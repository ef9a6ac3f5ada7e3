package dev.dlock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where locks live: one Redis ({@link SingleNodeStore}) or a Redlock quorum of independent masters
 * ({@link QuorumStore}). The acquire loop, the watchdog and the lock types talk to this interface
 * only, so every lock type works on both.
 *
 * <p>Futures fail with {@link dev.dlock.LockBackendException} whose message says what is known:
 * which node failed how, and whether the outcome is unknown.
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

    /**
     * Whether {@link #handOff} is supported: a release may pass the lock straight to a waiter of
     * the same client. One Redis only; over Redlock a release is always a release.
     */
    default boolean handsOffLocally() {
        return false;
    }

    /**
     * The last release of a reentrant hold whose client has a waiter parked on the lock
     * (handoff.lua): the lock goes to {@code toOwner} in the same script, unless waiters of
     * other clients are subscribed, in which case it is released for everyone.
     *
     * @param ownSubscriptions the releasing client's own subscriptions to the lock's channel (0 or 1)
     */
    default CompletableFuture<HandoffReply> handOff(LockTarget target, String fromOwner, int ownSubscriptions,
                                                    String toOwner, long leaseMs, String holder) {
        throw new UnsupportedOperationException("this store releases, it does not hand over");
    }

    /**
     * handoff.lua's outcome: the waiter's grant when it was handed over; otherwise the lock was
     * released for everyone, or ({@code notOwner}) it was no longer the releasing hold's.
     */
    record HandoffReply(AcquireReply.Granted grant, boolean notOwner) {
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
    CompletableFuture<Renewal[]> renew(List<Hold> holds, long leaseMs);

    /** The lock's state as the kind sees it (a read lock: its readers; a write lock: its writer). */
    CompletableFuture<LockState> inspect(LockTarget target, LockKind kind);

    /** Connections waiting on the lock's channel (on a quorum: the most any node reports). */
    CompletableFuture<Long> waitingClients(LockTarget target);

    /** Keys matching the glob, from every reachable node. */
    CompletableFuture<List<String>> scan(String keyPattern);

    /** The validity left of a grant made at {@code startNanos} for {@code leaseMs}. */
    long validUntilNanos(long startNanos, long leaseMs);

    @Override
    void close();
}
