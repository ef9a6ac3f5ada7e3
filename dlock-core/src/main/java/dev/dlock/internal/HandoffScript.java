package dev.dlock.internal;

import java.util.concurrent.CompletableFuture;

/**
 * A store's optional capability (one Redis only; over Redlock a release is always a release): the
 * last release of a reentrant hold passes the lock straight to a waiter of the same client, in
 * the same script (handoff.lua). See {@link LockStore#handoffScript()}.
 */
interface HandoffScript {

    /**
     * The last release of a reentrant hold whose client has a waiter parked on the lock: the lock
     * goes to {@code toOwner}, unless waiters of other clients are subscribed, in which case it is
     * released for everyone.
     *
     * @param ownSubscriptions the releasing client's own subscriptions to the lock's channel (0 or 1)
     */
    CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                     long leaseMs, String holder);

    /**
     * handoff.lua's outcome: the waiter's grant when it was handed over; otherwise the lock was
     * released for everyone, or ({@code notOwner}) it was no longer the releasing hold's.
     */
    record Reply(AcquireReply.Granted grant, boolean notOwner) {
    }
}
