package dev.dlock.internal.acquire;

import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition's standing in its lock's queue in the store ({@link LockKind#queued()}: fair lock,
 * waiting writer; and the reentrant lock on one Redis, {@link LocalHandoff#queuesInStore}), kept
 * across its attempts: one waiter id for all of them (its place in the queue, or its waiting
 * mark; a reentrant waiter takes a fresh one after an attempt that failed without an answer, see
 * {@link #renameAfterFailedAttempt()}), the fair lock's ticket once the nodes agreed on it, and
 * whether an attempt asked to be queued, so that the waiter leaves as soon as it stops waiting. Otherwise, and for a re-entry,
 * the waiter id is "" and there is nothing to leave.
 */
public final class QueuePlace {

    private final LockStore store;
    private final LockTarget target;
    private final LockKind kind;
    private final boolean inQueue;
    /** Whether a message naming this waiter hands it the lock (see {@link #renameAfterFailedAttempt()}). */
    private final boolean takesOverFromMessages;
    private final ClientIdentity identity;
    private final String ownerPrefix;
    private volatile String waiterId;
    /** Fair lock: the waiter's place, agreed by the nodes at its first refusal; 0 until then. */
    private volatile long ticket;
    /** An attempt asked to be queued: the waiter must leave when it stops waiting. */
    private volatile boolean queued;
    /** An attempt of a waiter with a place in the store was refused, which queued it there. */
    private volatile boolean refusedInQueue;
    /** See {@link #shortHandoverFromNanos()}. */
    private volatile long shortHandoverFromNanos;
    private final long waiterTimeoutMs;
    private final long waiterRefreshMs;

    /** @param owner the acquisition's owner prefix, or the hold's owner id for a re-entry */
    public QueuePlace(AcquireContext context, LockTarget target, LockKind kind, String owner, boolean reentry) {
        this.store = context.store();
        this.target = target;
        this.kind = kind;
        this.inQueue = context.handoff().queuesInStore(kind) && !reentry;
        this.takesOverFromMessages = inQueue && kind.handsOffLocally() && store.handsOverByNamingWaiters();
        this.identity = context.identity();
        this.ownerPrefix = owner;
        this.waiterTimeoutMs = context.settings().waiterTimeout().toMillis();
        this.waiterRefreshMs = context.settings().waiterRefreshMs();
        // distinct from every owner id (prefix:<n>), and never reused
        this.waiterId = inQueue ? freshWaiterId() : "";
    }

    private String freshWaiterId() {
        return ownerPrefix + ":q" + identity.nextOwnerSequence();
    }

    /**
     * An attempt failed without an answer (a timeout, a broken link): Redis may still run it, late.
     * Had a release handed the lock to this waiter id by then, that attempt claimed it (acquire.lua)
     * and its abandon, which the store sent after it, passed it on; the handoff's message may still
     * reach this waiter, even after a later attempt was refused and queued it again under the same
     * id — and a release of the next holder could then hand it the lock again, under the id it
     * believes it holds by. So a waiter that takes the lock over from messages leaves the queue
     * under this id (which passes on a handoff to it nobody claimed) and waits on under a fresh id,
     * at the back of the queue, and its {@code watch} wakes only for messages naming the new id: no
     * message naming the old id is acted on.
     */
    void renameAfterFailedAttempt(ChannelWatch watch) {
        if (!takesOverFromMessages) {
            return;
        }
        if (queued) {
            store.leave(target, kind, waiterId);
        }
        queued = false;
        refusedInQueue = false;
        waiterId = freshWaiterId();
        watch.renameWaiter(waiterId);
    }

    public String waiterId() {
        return waiterId;
    }

    public long ticket() {
        return ticket;
    }

    /** Whether the acquisition has a place in a queue in the store, where it must ask again before its deadline. */
    public boolean inQueue() {
        return inQueue;
    }

    /** Whether it is queued in the store: an attempt of it was refused, which queued it. */
    public boolean isQueuedInStore() {
        return refusedInQueue;
    }

    /** How long a waiter queued in the store may wait before it must ask again: a third of the waiter timeout. */
    public long refreshNanos() {
        return TimeUnit.MILLISECONDS.toNanos(waiterRefreshMs);
    }

    /**
     * A release handed the lock to this queued waiter (lib/next_waiter.lua): the grant, under its
     * waiter id (the caller's owner id from now on) with the given token. Its last attempt was
     * refused before the handoff (had it come after, it would have been granted), so the lease is
     * counted from that attempt's start; the store keeps it for the waiter's lease or until its queue
     * deadline, whichever is first, which is never shorter than its lease or the waiter timeout
     * counted from that start. Its entry went with the handoff: nothing to leave.
     *
     * @param fromNanos the start of the waiter's last attempt
     */
    public AcquireReply.Granted handedOver(long token, long fromNanos, long leaseMs) {
        queued = false;
        shortHandoverFromNanos = leaseMs > waiterTimeoutMs ? fromNanos : 0;
        long knownMs = Math.min(leaseMs, waiterTimeoutMs);
        return new AcquireReply.Granted(token, 1, fromNanos + TimeUnit.MILLISECONDS.toNanos(knownMs));
    }

    /**
     * When a release handed the lock over for less than the waiter's lease (its queue deadline came
     * first), the start of its last attempt, from which the lease counts
     * ({@link dev.dlock.internal.LockEngine#register} renews it early); else 0.
     */
    public long shortHandoverFromNanos() {
        return shortHandoverFromNanos;
    }

    /** An attempt is sent; {@code mayWait}: it asks to be queued if refused. */
    public void attempting(boolean mayWait) {
        if (mayWait && inQueue) {
            queued = true;
        }
    }

    /** An attempt was refused: the first ticket the nodes give is the waiter's for good. */
    public void refused(AcquireReply.Busy busy) {
        refusedInQueue = queued;
        if (ticket == 0 && busy.ticket() > 0) {
            ticket = busy.ticket();
        }
    }

    /** Leaves the queue if an attempt asked to be queued (best effort, not awaited). */
    public void leave() {
        if (queued) {
            store.leave(target, kind, waiterId);
        }
    }

    /** Like {@link #leave()}, then runs {@code then} once nothing of the waiter remains (at once if nothing was queued). */
    public void leaveThen(Runnable then) {
        if (queued) {
            // "false" is returned once the waiter has left the queue, so nothing of it remains
            store.leave(target, kind, waiterId).whenComplete((ok, error) -> then.run());
        } else {
            then.run();
        }
    }
}
