package dev.dlock.internal.store;

/**
 * One acquire attempt, as the acquire loop asks it of a {@link LockStore}.
 *
 * @param owner           owner id of this attempt: fresh for every attempt (a late command of a
 *                        past attempt cannot touch a later grant), the hold's own on re-entry
 * @param leaseMs         lease in milliseconds
 * @param holder          holder description stored for inspection
 * @param reentry         the caller believes it holds the lock already
 * @param waiterId        queued kinds: the acquisition's place in the queue (or its waiting
 *                        mark), the same for all its attempts; "" otherwise
 * @param waiterTimeoutMs queued kinds: how long a waiter keeps its place without asking again
 * @param mayWait         the caller waits when refused (queued kinds then queue it)
 * @param ticket          fair lock: the waiter's agreed place once known, else 0
 * @param downgradeFrom   read lock: owner id of the calling thread's write hold, else ""
 * @param permits         semaphore: the permit count the caller expects, else 0
 */
public record AcquireRequest(String owner, long leaseMs, String holder, boolean reentry, String waiterId,
                      long waiterTimeoutMs, boolean mayWait, long ticket, String downgradeFrom, int permits) {

    /** A request of any kind but a semaphore's. */
    public AcquireRequest(String owner, long leaseMs, String holder, boolean reentry, String waiterId, long waiterTimeoutMs,
                   boolean mayWait, long ticket, String downgradeFrom) {
        this(owner, leaseMs, holder, reentry, waiterId, waiterTimeoutMs, mayWait, ticket, downgradeFrom, 0);
    }
}
