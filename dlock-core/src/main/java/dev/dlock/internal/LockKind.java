package dev.dlock.internal;

/**
 * The kinds of lock, as a strategy: a kind chooses the scripts, the keys they touch and their
 * arguments, and a few properties of the acquire loop. {@link Acquisition}, both stores, the
 * watchdog and {@link RedisLock} serve every kind; nothing else differs between them.
 *
 * <p>Every kind's acquire script answers like acquire.lua ({@code {1, token, holdCount}},
 * {@code {0, retryAfterMs[, ticket]}}, {@code {-1}}) and its release like release.lua, so the
 * quorum logic of {@link QuorumStore} is the same for all. All kinds of one name share the key
 * {@code <prefix>{name}} and exclude each other (a reentrant or fair lock counts as a writer to a
 * read-write lock), though mixing kinds on one name is not meant to be done.
 */
enum LockKind {

    /** The reentrant lock: any waiter may win when it is released. */
    REENTRANT("lock", false, ""),

    /**
     * Granted in request order. Waiters are queued with a liveness deadline; the release hands the
     * lock to the first live waiter and wakes only it.
     */
    FAIR("fair lock", true, ""),

    /** The shared side of a read-write lock. */
    READ("read lock", false, "r"),

    /** The exclusive side of a read-write lock; a waiting writer holds new readers back. */
    WRITE("write lock", true, "w"),

    /**
     * One permit of a semaphore: at most its permit count held at once, each permit with its own
     * lease, not reentrant. Held like a reader (inspect.lua's reader view shows the permits).
     */
    PERMIT("semaphore", false, "r");

    private final String label;
    private final boolean queued;
    private final String mode;

    LockKind(String label, boolean queued, String mode) {
        this.label = label;
        this.queued = queued;
        this.mode = mode;
    }

    /** "fair lock" etc., for messages. */
    String label() {
        return label;
    }

    /**
     * Whether a waiter of this kind leaves a trace in Redis (a place in the queue, a waiting mark)
     * that lasts the waiter timeout: such a waiter asks again at least every third of it, keeps
     * one waiter id across its attempts, and leaves when it stops waiting.
     */
    boolean queued() {
        return queued;
    }

    /**
     * Whether a release message may name the waiter the lock was handed to ("token:waiterId"): the
     * fair lock's, and the reentrant lock's where its waiters are queued (one Redis; see
     * {@link LocalHandoff}).
     */
    boolean handsOver() {
        return this == FAIR || this == REENTRANT;
    }

    /**
     * Whether the last release of a hold may pass the lock straight to a waiter of the same client
     * (handoff.lua, one Redis only; see {@link LocalHandoff}): the reentrant lock, whose waiters
     * are not queued in Redis, so the handoff skips no one that Redis would have preferred.
     */
    boolean handsOffLocally() {
        return this == REENTRANT;
    }

    /**
     * The kind whose hold by the same thread this kind may not be taken over: the write lock
     * while the thread holds only the read lock (an upgrade would wait for its own read hold
     * forever); null when nothing blocks it.
     */
    LockKind refusedWhileHolding() {
        return this == WRITE ? READ : null;
    }

    /**
     * The kind of hold by the same thread under whose owner this kind may also be taken (the read
     * lock while the thread holds the write lock: a downgrade); null for none.
     */
    LockKind sharesOwnerWith() {
        return this == READ ? WRITE : null;
    }

    /** The kind whose view of a lock shows whoever holds it, whatever the holder's kind (for listings). */
    static LockKind anyHolderView() {
        return REENTRANT;
    }

    /**
     * Whether a grant names a slot (a semaphore permit is one of its permit count's slots), on which a
     * Redlock quorum must agree: a slot held on a majority has one holder, so the semaphore has at
     * most its permit count of them.
     */
    boolean grantsSlots() {
        return this == PERMIT;
    }

    /** inspect.lua's view and reassert.lua's mode for holds of this kind. */
    String mode() {
        return mode;
    }

    ScriptCall acquire(LockTarget target, AcquireRequest request, Floor floor) {
        String owner = request.owner();
        return switch (this) {
            // the reentrant lock stores no holder description: its owner id leads to the client record
            case REENTRANT -> Scripts.acquire(target, floor, owner, request.leaseMs(), request.reentry(),
                    request.waiterId(), request.waiterTimeoutMs(), request.mayWait());
            case FAIR -> Scripts.fairAcquire(target, floor, owner, request.leaseMs(), request.holder(), request.reentry(),
                    request.waiterId(), request.waiterTimeoutMs(), request.mayWait(), request.ticket());
            case READ, WRITE -> Scripts.rwAcquire(target, floor, owner, request.leaseMs(), request.holder(),
                    request.reentry(), mode, request.waiterId(), request.waiterTimeoutMs(), request.mayWait(),
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
    ScriptCall release(LockTarget target, String owner, long token, Floor floor, boolean waitersQueued) {
        return switch (this) {
            case REENTRANT -> Scripts.release(target, floor, owner, token, waitersQueued);
            case FAIR -> Scripts.fairRelease(target, floor, owner, token);
            case READ, WRITE -> Scripts.rwRelease(target, floor, owner, token, mode, false);
            case PERMIT -> Scripts.semaphoreRelease(target, floor, owner, token);
        };
    }

    /**
     * Drops every hold of the owner at once.
     *
     * @param keepPlace fair lock over Redlock: the attempt that won a minority keeps its place in
     *                  the queue (same ticket) on the nodes it gives back; null otherwise
     */
    ScriptCall abandon(LockTarget target, String owner, Floor floor, AcquireRequest keepPlace) {
        return switch (this) {
            case REENTRANT -> Scripts.abandon(target, floor, owner, 0);
            case FAIR -> Scripts.fairAbandon(target, floor, owner, 0, keepPlace);
            case READ, WRITE -> Scripts.rwRelease(target, floor, owner, 0, mode, true);
            case PERMIT -> Scripts.semaphoreRelease(target, floor, owner, 0);
        };
    }

    /** The waiter stops waiting: its place or waiting mark goes; null for kinds that leave none. */
    ScriptCall leave(LockTarget target, String waiterId, Floor floor) {
        return switch (this) {
            case FAIR -> Scripts.fairLeave(target, waiterId);
            case WRITE -> Scripts.rwLeave(target, waiterId);
            case REENTRANT -> Scripts.leave(target, floor, waiterId);
            case READ, PERMIT -> null;
        };
    }

    ScriptCall inspect(LockTarget target) {
        return Scripts.inspect(target, mode);
    }

    /**
     * Redlock: puts the hold back on a node that lost it; null for a permit, whose slot the hold does
     * not know (the permit stays held while a quorum renews it).
     */
    ScriptCall reassert(HeldLock hold, long leaseMs) {
        return this == PERMIT ? null : Scripts.reassert(hold, leaseMs, mode);
    }

    /** A token floor ({@link TokenFloors}): its key and how long it lives after each raise, in ms. */
    record Floor(String key, String ttlMs) {
    }
}
