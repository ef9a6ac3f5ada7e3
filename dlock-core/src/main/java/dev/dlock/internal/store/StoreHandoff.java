package dev.dlock.internal.store;

import java.util.concurrent.CompletableFuture;

/**
 * A store's optional capability (one Redis: handoff.lua; over Redlock a release is always a
 * release): the last release of a reentrant hold passes the lock straight to the first queued
 * waiter of another client, or else to a waiter of the same client, in one step. See
 * {@link LockStore#handoff()}. Where a store has it, the reentrant lock's waiters are queued in
 * the store, so a release can hand the lock to the first of them.
 */
public interface StoreHandoff {

    /**
     * The last release of a reentrant hold whose client has a waiter parked on the lock: the lock
     * goes to the first queued waiter of another client, else to {@code toOwner}, unless waiters
     * that are not queued are subscribed, in which case it is released for everyone.
     *
     * @param ownSubscriptions the releasing client's own subscriptions to the lock's channel (0 or 1)
     * @param toWaiterId       the parked waiter's waiter id, which leaves the queue with the grant
     */
    CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                     long leaseMs, String toWaiterId);

    /**
     * As above, with the holder description of the waiter's thread, for a store that keeps it with
     * the hold (ZooKeeper, in the node's data); the others keep it elsewhere and ignore it.
     */
    default CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                             long leaseMs, String toWaiterId, String toHolder) {
        return handOff(target, fromOwner, ownSubscriptions, toOwner, leaseMs, toWaiterId);
    }

    /**
     * As above, saying whether the waiter is queued in the store too, for a store that may pass the
     * lock to a waiter that is not without a call (PostgreSQL); the others ignore it.
     */
    default CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                             long leaseMs, String toWaiterId, String toHolder, boolean toQueued) {
        return handOff(target, fromOwner, ownSubscriptions, toOwner, leaseMs, toWaiterId, toHolder);
    }

    /** Where the handoff put the lock. */
    public enum Outcome {
        /** To the client's own parked waiter: {@link Reply#grant()} is its grant. */
        HANDED_TO_OWN_WAITER,
        /** To the first queued waiter (of another client, or of this one), which takes it over on its message. */
        HANDED_TO_QUEUED,
        /** Released for everyone: waiters that are not queued were subscribed. */
        RELEASED,
        /** It was no longer the releasing hold's; nothing changed. */
        NOT_OWNER
    }

    /**
     * The handoff's outcome: the own waiter's grant when it was handed to it; the queued waiter's
     * id when it was handed to one (else "").
     */
    public record Reply(AcquireReply.Granted grant, Outcome outcome, String queuedWaiter) {
    }
}
