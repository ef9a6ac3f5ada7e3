package dev.dlock.internal.acquire;

import dev.dlock.LockBackendException;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldLosses;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.StoreHandoff;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Passing a lock between the threads of one client (one Redis, kinds that
 * {@linkplain LockKind#handsOffLocally() hand off locally}): the waiters parked on a lock, the
 * handoff of a last release to the first of them (see {@link ParkedWaiters}) unless a waiter of
 * another client is queued in the store (it gets the lock instead, and this client's waiters ask again
 * so that they are queued behind it), and what this client knows it holds, so that a new waiter
 * parks at once instead of asking the store, which would refuse.
 */
public final class LocalHandoff {

    private final LockStore store;
    private final WakeUps wakeUps;
    private final HoldRegistry holds;
    private final HoldLosses losses;
    private final ParkedWaiters parkedWaiters = new ParkedWaiters();
    /**
     * Locks being handed from one hold of this client to a waiter of it, or just handed to one that
     * has not registered its hold yet: until when they are known valid.
     */
    private final ConcurrentHashMap<String, Long> handedOver = new ConcurrentHashMap<>();

    public LocalHandoff(LockStore store, WakeUps wakeUps, HoldRegistry holds, HoldLosses losses) {
        this.store = store;
        this.wakeUps = wakeUps;
        this.holds = holds;
        this.losses = losses;
    }

    /** Whether waiters of this kind park for a handoff: the kind hands off locally and the store can. */
    public boolean parksFor(LockKind kind) {
        return kind.handsOffLocally() && store.handoff().isPresent();
    }

    /**
     * Whether a refused waiter of this kind is queued in the store: a queued kind, one that hands
     * off where the store can (its release then hands the lock to the first queued waiter of any
     * client, see lib/next_waiter.lua), or any kind where the store queues every waiter.
     */
    public boolean queuesInStore(LockKind kind) {
        return kind.queued() || parksFor(kind) || store.queuesEveryWaiter();
    }

    public void park(String key, ParkedWaiters.Waiter waiter) {
        parkedWaiters.park(key, waiter);
    }

    public void unpark(String key, ParkedWaiters.Waiter waiter) {
        parkedWaiters.unpark(key, waiter);
    }

    /**
     * Until when this client is known to hold the lock of this key (monotonic nanos): through a
     * registered hold, or a handoff to one of its waiters that has not registered its hold yet;
     * 0 when it is not known to.
     */
    public long heldHereUntilNanos(String key) {
        Hold hold = holds.handingOff(key);
        if (hold != null && !hold.isKnownInvalid()) {
            return hold.validUntilNanos;
        }
        Long handed = handedOver.get(key);
        return handed == null ? 0 : handed;
    }

    /** The waiter a handoff was meant for has registered its hold: the registry knows it now. */
    public void registered(Hold hold) {
        if (hold.kind.handsOffLocally()) {
            handedOver.remove(hold.target.key());
        }
    }

    /** A handed-over grant that nobody will register (its waiter had stopped waiting). */
    public void dropped(String key) {
        handedOver.remove(key);
    }

    /**
     * The last release of a hold: hands the lock to the first waiter of this client parked on
     * it, in the same script, or releases it for everyone when other clients wait too. Null when
     * no waiter is parked (the caller releases as usual). Fails like a release; the waiter then
     * tries on its own again.
     */
    public CompletableFuture<Void> handOffToParked(Hold hold) {
        if (!hold.kind.handsOffLocally()) {
            return null;
        }
        StoreHandoff script = store.handoff().orElse(null);
        if (script == null) {
            return null;
        }
        ParkedWaiters.Waiter next = parkedWaiters.claimFirst(hold.target.key());
        return next == null ? null : handOff(script, hold, next);
    }

    private CompletableFuture<Void> handOff(StoreHandoff script, Hold hold, ParkedWaiters.Waiter next) {
        LockTarget target = hold.target;
        String nextOwner = next.ownerForHandoff();
        int ownSubscriptions = wakeUps.isJoined(target.channel()) ? 1 : 0;
        // held here all along if the handoff succeeds: new waiters of this client need not ask the store
        handedOver.put(target.key(), hold.validUntilNanos);
        return script.handOff(target, hold.owner, ownSubscriptions, nextOwner, next.leaseMs(), next.waiterId(), next.holder(),
                        next.isQueued())
                .handle((reply, error) -> {
                    if (error != null) {
                        handedOver.remove(target.key());
                        // outcome unknown: the lock may still be the releaser's, or the waiter's already
                        store.abandon(target, hold.kind, hold.owner);
                        store.abandon(target, hold.kind, nextOwner);
                        next.resume();
                        throw Failures.extend((LockBackendException) Failures.unwrap(error),
                                "; a best-effort release was sent");
                    }
                    if (reply.outcome() == StoreHandoff.Outcome.HANDED_TO_OWN_WAITER) {
                        // the next holder registers its hold once its thread runs
                        handedOver.put(target.key(), reply.grant().validUntilNanos());
                        next.takeOver(reply.grant());
                        return null;
                    }
                    handedOver.remove(target.key());
                    if (reply.outcome() == StoreHandoff.Outcome.HANDED_TO_QUEUED) {
                        String client = hold.owner.substring(0, hold.owner.indexOf(':') + 1);
                        if (reply.queuedWaiter().startsWith(client)) {
                            // to a waiter of this client that was queued first: it stays here
                            handedOver.put(target.key(), hold.validUntilNanos);
                        } else {
                            // the lock left this client: its parked waiters that never asked the store
                            // ask now and are queued behind the new holder; those queued wait on
                            ParkedWaiters.Waiter parked;
                            while ((parked = parkedWaiters.claimFirst(target.key(), waiter -> !waiter.isQueued())) != null) {
                                parked.handedToAnother();
                            }
                        }
                        next.handedToAnother();
                        return null;
                    }
                    next.resume();
                    if (reply.outcome() == StoreHandoff.Outcome.NOT_OWNER) {
                        losses.lost(hold, LossCause.GONE, HoldLosses.NOT_OWNER_AT_RELEASE);
                        throw hold.lossOrNull();
                    }
                    return null;
                });
    }
}
