package dev.dlock;

/**
 * Told what a client's locks do, for metrics and tracing: acquisitions and their waits, holds and
 * how they end, the watchdog's renewals, losses, and every call to the store. Set with
 * {@link LockClientBuilder#observer(LockObserver)}; {@code dlock-micrometer}'s {@code DlockMetrics}
 * is one that records Micrometer meters. Every method does nothing by default, so an observer
 * implements only what it needs; {@link #NONE} implements nothing.
 *
 * <p><b>Threads and cost.</b> Methods are called on the thread where the event happens: the
 * caller's thread for {@link #acquireStarted}, otherwise often the store client's I/O thread or the client's
 * timer thread, so they must be quick and must not block (updating a meter is fine; calling the
 * store or taking a lock is not). They may be called from several threads at once.
 *
 * <p><b>Failures.</b> An observer cannot break locking: whatever it throws is caught, logged
 * (WARN the first time for each method, DEBUG after that) and otherwise ignored.
 *
 * <p><b>What counts.</b> An acquisition is one call of {@code lock}, {@code tryLock},
 * {@code lockInterruptibly}, {@code acquireAsync} or {@code tryAcquireAsync} that does not re-enter
 * a hold of the same thread: re-entries are reported only as script calls. A hold is what a
 * granted acquisition gives, from the grant until its last release or its loss.
 */
public interface LockObserver {

    /** The observer that does nothing, the default. */
    LockObserver NONE = new LockObserver() {
        @Override
        public String toString() {
            return "LockObserver.NONE";
        }
    };

    /** How an acquisition ended. Constants may be added in later versions. */
    enum AcquireOutcome {
        /** Granted. */
        ACQUIRED,
        /** Refused by an acquire that had no time to wait ({@code tryLock()}, a zero wait). */
        BUSY,
        /** Still held by another owner when the acquire's wait ended. */
        TIMED_OUT,
        /** The waiting thread was interrupted, or the future of an async acquire was cancelled. */
        INTERRUPTED,
        /** the store failed, or failed for longer than the acquire's budget: the caller got a {@link LockBackendException}. */
        ERROR
    }

    /** How a hold ended. Constants may be added in later versions. */
    enum HoldEnding {
        /**
         * Its holder let go: the last release (a release the store did not answer counts too: the
         * lease frees the lock), or the client was closed.
         */
        RELEASED,
        /** Lost before its holder let go; {@link #lost} says why. */
        LOST
    }

    /**
     * Why a hold was lost: {@link LockLostException#reason()}, and the {@code cause} of a loss told to
     * {@link #lost}. Constants may be added in later versions.
     */
    enum LossCause {
        /** Its lease ran out on the client's clock: an explicit lease's end, which is never renewed. */
        EXPIRED,
        /**
         * The store no longer had it as this holder's, found by a renewal, a re-entry or the release:
         * its lease ran out there, it was force-released without the client hearing of it, another
         * owner has it now, or a restart or failover of the store forgot it. The store cannot tell which.
         */
        GONE,
        /** Force-released ({@code forceUnlock()}, {@code dlock release --force}), and the store told the client at once. */
        FORCE_RELEASED,
        /** Renewals did not get an answer (the store, or a Redlock quorum, unreachable) until its validity ran out. */
        BACKEND_UNREACHABLE,
        /**
         * The client was closed, which released it: only a {@link LockLostException}'s reason (an unlock
         * after the close); the observer is told of such a hold as released, never as lost.
         */
        CLIENT_CLOSED
    }

    /**
     * An acquisition starts, on the calling thread (so a tracing context of that thread is at
     * hand). Not called for re-entries.
     *
     * @param kind     the kind of lock
     * @param lockName the lock's name
     * @return any value of the observer's own (say, a tracing span), handed back to
     *     {@link #acquireFinished}; null by default
     */
    default Object acquireStarted(LockKind kind, String lockName) {
        return null;
    }

    /**
     * An acquisition was refused and now waits: for a release, for the holder's lease to end, or
     * for Redis to come back. Followed by one {@link #waitEnded} for the same acquisition. For a
     * gauge of waiting threads and handles.
     *
     * @param kind     the kind of lock
     * @param lockName the lock's name
     */
    default void waitStarted(LockKind kind, String lockName) {
    }

    /**
     * An acquisition that had {@linkplain #waitStarted started waiting} stopped waiting, just before
     * {@link #acquireFinished}.
     *
     * @param kind     the kind of lock
     * @param lockName the lock's name
     */
    default void waitEnded(LockKind kind, String lockName) {
    }

    /**
     * An acquisition ended, once per {@link #acquireStarted}.
     *
     * @param kind      the kind of lock
     * @param lockName  the lock's name
     * @param outcome   how it ended
     * @param waitNanos how long the acquisition took, from its start to its outcome, in nanoseconds
     * @param started   what {@link #acquireStarted} returned
     */
    default void acquireFinished(LockKind kind, String lockName, AcquireOutcome outcome, long waitNanos, Object started) {
    }

    /**
     * A hold began: an acquisition was granted and its hold registered with the client.
     *
     * @param kind     the kind of lock
     * @param lockName the lock's name
     */
    default void holdStarted(LockKind kind, String lockName) {
    }

    /**
     * A hold ended, once per {@link #holdStarted}; for a lost hold, just after {@link #lost}.
     *
     * @param kind      the kind of lock
     * @param lockName  the lock's name
     * @param heldNanos how long it was held, in nanoseconds
     * @param ending    released or lost
     */
    default void holdEnded(LockKind kind, String lockName, long heldNanos, HoldEnding ending) {
    }

    /**
     * A hold was lost, once per lost hold (the client's {@link LockListener}s are told too).
     *
     * @param kind     the kind of lock
     * @param lockName the lock's name
     * @param cause    why
     */
    default void lost(LockKind kind, String lockName, LossCause cause) {
    }

    /**
     * The watchdog's periodic round starts renewing the client's watchdog holds (every third of the
     * default lease, only while there are any).
     *
     * @param holds    how many holds the round renews
     * @param lagNanos how late the round started, in nanoseconds: the time since the previous
     *                 round beyond one period (0 when on time). A lag near a third of the lease
     *                 leaves the holds close to losing their leases.
     */
    default void renewalRound(int holds, long lagNanos) {
    }

    /**
     * The reply to one renewal script call of a round (a round renews up to 500 holds per call):
     * how many holds it renewed and how many it could not, because the store (a Redlock quorum) did
     * not answer. A hold found gone is neither: it is reported by {@link #lost}.
     *
     * @param renewed holds whose lease was extended
     * @param failed  holds not renewed for want of an answer; they are lost if no later renewal
     *                reaches them before their validity ends
     */
    default void renewalBatch(int renewed, int failed) {
    }

    /**
     * One call to the store completed (a Redis script, a PostgreSQL function), as the client saw it: from sending until the reply or the
     * failure, including a reload after NOSCRIPT. On Redlock each node's call is reported, so one
     * operation over N masters is N calls.
     *
     * @param script the script's name: {@code acquire}, {@code release}, {@code renew},
     *               {@code fair_acquire}, ... (the file name of its {@code .lua} resource without
     *               the extension)
     * @param nanos  how long it took, in nanoseconds
     * @param ok     true when the store replied without error (a refusal such as "busy" is a reply);
     *               false on a timeout, a lost connection or an error reply
     */
    default void scriptCall(String script, long nanos, boolean ok) {
    }
}
