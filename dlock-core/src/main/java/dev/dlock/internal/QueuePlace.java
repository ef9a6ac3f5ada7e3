package dev.dlock.internal;

/**
 * One acquisition's standing in its lock's queue in Redis ({@link LockKind#queued()}: fair lock,
 * waiting writer; and the reentrant lock on one Redis, {@link LocalHandoff#queuesInRedis}), kept
 * across its attempts: one waiter id for all of them (its place in the queue, or its waiting
 * mark), the fair lock's ticket once the nodes agreed on it, and whether an attempt asked to be
 * queued, so that the waiter leaves as soon as it stops waiting. Otherwise, and for a re-entry,
 * the waiter id is "" and there is nothing to leave.
 */
final class QueuePlace {

    private final LockStore store;
    private final LockTarget target;
    private final LockKind kind;
    private final boolean inQueue;
    private final String waiterId;
    /** Fair lock: the waiter's place, agreed by the nodes at its first refusal; 0 until then. */
    private volatile long ticket;
    /** An attempt asked to be queued: the waiter must leave when it stops waiting. */
    private volatile boolean queued;

    /** @param owner the acquisition's owner prefix, or the hold's owner id for a re-entry */
    QueuePlace(Acquisition.Context context, LockTarget target, LockKind kind, String owner, boolean reentry) {
        this.store = context.store();
        this.target = target;
        this.kind = kind;
        this.inQueue = context.handoff().queuesInRedis(kind) && !reentry;
        // distinct from every owner id (prefix:<n>), and never reused
        this.waiterId = inQueue ? owner + ":q" + context.identity().nextOwnerSequence() : "";
    }

    String waiterId() {
        return waiterId;
    }

    long ticket() {
        return ticket;
    }

    /** Whether an attempt asked to be queued in Redis (and, once refused, was). */
    boolean isQueued() {
        return queued;
    }

    /** Whether the acquisition has a place in a queue in Redis, where it must ask again before its deadline. */
    boolean inQueue() {
        return inQueue;
    }

    /** The lock was handed to this waiter, whose entry went with the handoff: nothing to leave. */
    void handedOver() {
        queued = false;
    }

    /** An attempt is sent; {@code mayWait}: it asks to be queued if refused. */
    void attempting(boolean mayWait) {
        if (mayWait && inQueue) {
            queued = true;
        }
    }

    /** An attempt was refused: the first ticket the nodes give is the waiter's for good. */
    void refused(AcquireReply.Busy busy) {
        if (ticket == 0 && busy.ticket() > 0) {
            ticket = busy.ticket();
        }
    }

    /** Leaves the queue if an attempt asked to be queued (best effort, not awaited). */
    void leave() {
        if (queued) {
            store.leave(target, kind, waiterId);
        }
    }

    /** Like {@link #leave()}, then runs {@code then} once nothing of the waiter remains (at once if nothing was queued). */
    void leaveThen(Runnable then) {
        if (queued) {
            // "false" is returned once the waiter has left the queue, so nothing of it remains
            store.leave(target, kind, waiterId).whenComplete((ok, error) -> then.run());
        } else {
            then.run();
        }
    }
}
