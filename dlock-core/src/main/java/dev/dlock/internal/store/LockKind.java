package dev.dlock.internal.store;

/**
 * The kinds of lock, and the few properties of the acquire loop that differ between them. The
 * acquire loop, every store, the watchdog and the lock types serve every kind; a store decides
 * how it keeps each kind (on Redis: which script).
 *
 * <p>Every kind's acquire answers like the reentrant lock's ({@link AcquireReply}) and its release
 * alike, so quorum logic is the same for all. All kinds of one name share the lock and exclude
 * each other (a reentrant or fair lock counts as a writer to a read-write lock), though mixing
 * kinds on one name is not meant to be done.
 */
public enum LockKind {

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
     * lease, not reentrant. Held like a reader (the readers' view shows the permits).
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
    public String label() {
        return label;
    }

    /**
     * Whether a waiter of this kind leaves a trace in the store (a place in the queue, a waiting mark)
     * that lasts the waiter timeout: such a waiter asks again at least every third of it, keeps
     * one waiter id across its attempts, and leaves when it stops waiting.
     */
    public boolean queued() {
        return queued;
    }

    /**
     * Whether a release message may name the waiter the lock was handed to ("token:waiterId"): the
     * fair lock's, and the reentrant lock's where its waiters are queued (where the store hands off).
     */
    public boolean handsOver() {
        return this == FAIR || this == REENTRANT;
    }

    /**
     * Whether the last release of a hold may pass the lock straight to a waiter of the same client
     * (where the store can, see {@link StoreHandoff}): the reentrant lock, whose waiters are not
     * queued otherwise, so the handoff skips no one that the store would have preferred.
     */
    public boolean handsOffLocally() {
        return this == REENTRANT;
    }

    /**
     * The kind whose hold by the same thread this kind may not be taken over: the write lock
     * while the thread holds only the read lock (an upgrade would wait for its own read hold
     * forever); null when nothing blocks it.
     */
    public LockKind refusedWhileHolding() {
        return this == WRITE ? READ : null;
    }

    /**
     * The kind of hold by the same thread under whose owner this kind may also be taken (the read
     * lock while the thread holds the write lock: a downgrade); null for none.
     */
    public LockKind sharesOwnerWith() {
        return this == READ ? WRITE : null;
    }

    /** The kind whose view of a lock shows whoever holds it, whatever the holder's kind (for listings). */
    public static LockKind anyHolderView() {
        return REENTRANT;
    }

    /**
     * Whether a grant names a slot (a semaphore permit is one of its permit count's slots), on which a
     * Redlock quorum must agree: a slot held on a majority has one holder, so the semaphore has at
     * most its permit count of them.
     */
    public boolean grantsSlots() {
        return this == PERMIT;
    }

    /** The kind's view of a lock: "" the exclusive holder, "r" the shared holders, "w" the writer. */
    public String mode() {
        return mode;
    }
}
