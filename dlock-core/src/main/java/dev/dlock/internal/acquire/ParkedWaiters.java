package dev.dlock.internal.acquire;

import dev.dlock.internal.store.AcquireReply;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The waiters of one client parked on its reentrant locks (where the store hands off), per lock key, in the
 * order they parked. When a hold of this client is released and one of its own waiters is
 * parked, the release hands the lock to that waiter in the same script (handoff.lua) instead of
 * deleting it and letting every waiter race for it: one round trip from release to the next
 * holder, no thundering herd on the client's own connection, and first come first served among
 * the client's threads. Waiters of other clients are not passed over: handoff.lua releases for
 * everyone when any of them is subscribed.
 *
 * <p>A key's queue is removed when it empties, so memory does not grow with the names ever used.
 */
public final class ParkedWaiters {

    /** What a release needs of a parked waiter to hand it the lock ({@link Acquisition} is one). */
    public interface Waiter {

        /**
         * A release is about to hand the lock to this waiter: true when it was parked and is now
         * bound to wait for {@link #takeOver} or {@link #resume}; false when it is already trying
         * again on its own.
         */
        boolean claimForHandoff();

        /** The owner id under which a claimed waiter is handed the lock: a fresh one, as for an attempt. */
        String ownerForHandoff();

        /** Its waiter id in the lock's queue in the store ("" when it has none), which it leaves with the grant. */
        String waiterId();

        /** Whether it is queued in the store: an attempt of it was refused and queued it. */
        boolean isQueued();

        long leaseMs();

        /** The holder description of its thread, as its attempts send it. */
        default String holder() {
            return "";
        }

        /** The handoff gave the lock to this claimed waiter. */
        void takeOver(AcquireReply.Granted grant);

        /** The handoff did not give the lock to this claimed waiter: it tries on its own again. */
        void resume();

        /**
         * The lock went to a waiter queued in the store, ahead of this claimed one: while this client
         * has it (the new holder is a waiter of this client) it parks again; else a waiter that is
         * queued there too waits on for its turn, and one that never asked the store asks now.
         */
        void handedToAnother();
    }

    private final ConcurrentHashMap<String, ArrayDeque<Waiter>> byKey = new ConcurrentHashMap<>();

    public void park(String key, Waiter waiter) {
        byKey.compute(key, (k, queue) -> {
            ArrayDeque<Waiter> parked = queue == null ? new ArrayDeque<>() : queue;
            parked.addLast(waiter);
            return parked;
        });
    }

    public void unpark(String key, Waiter waiter) {
        byKey.computeIfPresent(key, (k, queue) -> {
            queue.remove(waiter);
            return queue.isEmpty() ? null : queue;
        });
    }

    /**
     * Takes the first waiter still parked on the key and stops its own wake-ups, so that it waits
     * for the handoff's outcome only; null when none is. Waiters that are already trying again
     * on their own are dropped from the queue (they park again if they stay busy).
     */
    public Waiter claimFirst(String key) {
        return claimFirst(key, waiter -> true);
    }

    /** Like {@link #claimFirst(String)}, among the waiters that {@code which} accepts; the others stay parked. */
    public Waiter claimFirst(String key, java.util.function.Predicate<Waiter> which) {
        if (byKey.isEmpty()) {
            return null;
        }
        Waiter[] claimed = new Waiter[1];
        byKey.computeIfPresent(key, (k, queue) -> {
            java.util.Iterator<Waiter> parked = queue.iterator();
            while (parked.hasNext()) {
                Waiter waiter = parked.next();
                if (!which.test(waiter)) {
                    continue;
                }
                parked.remove();
                if (waiter.claimForHandoff()) {
                    claimed[0] = waiter;
                    break;
                }
            }
            return queue.isEmpty() ? null : queue;
        });
        return claimed[0];
    }
}
