package dev.dlock.internal.redis;

import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;

/**
 * Which script serves each {@link LockKind} on Redis, with the keys it touches and its arguments.
 * Every kind's acquire script answers like acquire.lua ({@code {1, token, holdCount}},
 * {@code {0, retryAfterMs[, ticket]}}, {@code {-1}}) and its release like release.lua, so the
 * quorum logic of {@link QuorumStore} is the same for all.
 */
public final class KindScripts {

    private KindScripts() {
    }

    public static ScriptCall acquire(LockKind kind, LockTarget target, AcquireRequest request, Floor floor) {
        String owner = request.owner();
        return switch (kind) {
            // the reentrant lock stores no holder description: its owner id leads to the client record
            case REENTRANT -> Scripts.acquire(target, floor, owner, request.leaseMs(), request.reentry(),
                    request.waiterId(), request.waiterTimeoutMs(), request.mayWait());
            case FAIR -> Scripts.fairAcquire(target, floor, owner, request.leaseMs(), request.holder(), request.reentry(),
                    request.waiterId(), request.waiterTimeoutMs(), request.mayWait(), request.ticket());
            case READ, WRITE -> Scripts.rwAcquire(target, floor, owner, request.leaseMs(), request.holder(),
                    request.reentry(), kind.mode(), request.waiterId(), request.waiterTimeoutMs(), request.mayWait(),
                    request.downgradeFrom());
            case PERMIT -> Scripts.semaphoreAcquire(target, floor, owner, request.leaseMs(), request.holder(),
                    request.permits());
        };
    }

    /**
     * Gives back one hold; see release.lua for the reply.
     *
     * @param waitersQueued false where this kind's waiters are never queued in Redis (Redlock): the
     *                      release need not look for one to hand the lock to
     */
    public static ScriptCall release(LockKind kind, LockTarget target, String owner, long token, Floor floor, boolean waitersQueued) {
        return switch (kind) {
            case REENTRANT -> Scripts.release(target, floor, owner, token, waitersQueued);
            case FAIR -> Scripts.fairRelease(target, floor, owner, token);
            case READ, WRITE -> Scripts.rwRelease(target, floor, owner, token, kind.mode(), false);
            case PERMIT -> Scripts.semaphoreRelease(target, floor, owner, token);
        };
    }

    /**
     * Drops every hold of the owner at once.
     *
     * @param keepPlace fair lock over Redlock: the attempt that won a minority keeps its place in
     *                  the queue (same ticket) on the nodes it gives back; null otherwise
     */
    public static ScriptCall abandon(LockKind kind, LockTarget target, String owner, Floor floor, AcquireRequest keepPlace) {
        return switch (kind) {
            case REENTRANT -> Scripts.abandon(target, floor, owner, 0);
            case FAIR -> Scripts.fairAbandon(target, floor, owner, 0, keepPlace);
            case READ, WRITE -> Scripts.rwRelease(target, floor, owner, 0, kind.mode(), true);
            case PERMIT -> Scripts.semaphoreRelease(target, floor, owner, 0);
        };
    }

    /** The waiter stops waiting: its place or waiting mark goes; null for kinds that leave none. */
    public static ScriptCall leave(LockKind kind, LockTarget target, String waiterId, Floor floor) {
        return switch (kind) {
            case FAIR -> Scripts.fairLeave(target, waiterId);
            case WRITE -> Scripts.rwLeave(target, waiterId);
            case REENTRANT -> Scripts.leave(target, floor, waiterId);
            case READ, PERMIT -> null;
        };
    }

    public static ScriptCall inspect(LockKind kind, LockTarget target) {
        return Scripts.inspect(target, kind.mode());
    }

    /**
     * Redlock: puts the hold back on a node that lost it; null for a permit, whose slot the hold does
     * not know (the permit stays held while a quorum renews it).
     */
    public static ScriptCall reassert(HeldLock hold, long leaseMs) {
        return hold.kind() == LockKind.PERMIT ? null : Scripts.reassert(hold, leaseMs, hold.kind().mode());
    }

    /** A token floor ({@link TokenFloors}): its key and how long it lives after each raise, in ms. */
    public record Floor(String key, String ttlMs) {
    }
}
