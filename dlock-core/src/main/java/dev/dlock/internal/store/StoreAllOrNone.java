package dev.dlock.internal.store;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A multi-lock's names taken as reentrant locks in one step, all of them or none, where a store can
 * ({@link LockStore#allOrNone()}; PostgreSQL: one transaction, one round trip). Elsewhere a
 * multi-lock takes its names one after the other.
 */
public interface StoreAllOrNone {

    /**
     * What one attempt came to: every name granted ({@code grants}, one per target in the order
     * asked), or refused at the first busy name ({@code busyIndex}, its {@code busy} reply), with
     * nothing of the attempt left held.
     */
    record Reply(List<AcquireReply.Granted> grants, int busyIndex, AcquireReply.Busy busy) {

        public boolean granted() {
            return grants != null;
        }
    }

    /**
     * One attempt on every target at once.
     *
     * @param owners   the attempt's owner id of each target, in the order of {@code targets}
     * @param waiterId the acquisition's waiter id, the same for all its attempts: refused and
     *                 {@code mayWait}, it is queued on the busy name only; a name handed to it by a
     *                 release counts as free for its next attempt
     */
    CompletableFuture<Reply> acquireAll(List<LockTarget> targets, List<String> owners, long leaseMs, String holder,
                                        String waiterId, long waiterTimeoutMs, boolean mayWait);
}
