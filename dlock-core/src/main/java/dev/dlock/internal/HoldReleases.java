package dev.dlock.internal;

import dev.dlock.LockBackendException;
import dev.dlock.LockLostException;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.acquire.LocalHandoff;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldLosses;
import dev.dlock.internal.observe.LockEvents;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How a client gives a hold back: a plain release (or, for a last release with a waiter of this
 * client parked, a local handoff), or a release that keeps the lock a minimum time; what the
 * store's answer means for the hold (lost, given back, an extra count dropped).
 */
final class HoldReleases {

    private final LockStore store;
    private final LocalHandoff handoff;
    private final LockEvents events;
    private final HoldLosses losses;
    private final Ticker ticker;
    /** Stops renewals and forgets the hold; run before the last release is sent. */
    private final Consumer<Hold> forget;

    HoldReleases(LockStore store, LocalHandoff handoff, LockEvents events, HoldLosses losses, Ticker ticker,
                 Consumer<Hold> forget) {
        this.store = store;
        this.handoff = handoff;
        this.events = events;
        this.losses = losses;
        this.ticker = ticker;
        this.forget = forget;
    }

    /**
     * Gives back one hold in the store. Completes exceptionally with {@link LockLostException} when
     * the caller no longer owns the lock, or {@link LockBackendException} when the store did not answer.
     *
     * @param last the caller's last hold: renewals stop before the release is sent
     */
    CompletableFuture<Void> release(Hold hold, boolean last) {
        if (last) {
            forget.accept(hold);
        }
        LockLostException loss = hold.lossOrNull();
        if (loss != null) {
            return CompletableFuture.failedFuture(loss);
        }
        if (last) {
            CompletableFuture<Void> handedOff = handoff.handOffToParked(hold);
            if (handedOff != null) {
                // lost instead if the handoff found it someone else's: the first report counts
                handedOff.whenComplete((ok, error) -> events.holdEnded(hold, HoldEnding.RELEASED));
                return handedOff;
            }
        }
        LockTarget target = hold.target;
        return store.release(target, hold.kind, hold.owner, hold.token).handle((holdsLeft, error) -> {
            if (error != null) {
                if (last) {
                    events.holdEnded(hold, HoldEnding.RELEASED);
                }
                throw Failures.extend((LockBackendException) Failures.unwrap(error), "; the lease (" + hold.leaseMs
                        + " ms) frees the lock by itself");
            }
            if (holdsLeft < 0) {
                losses.lost(hold, LossCause.GONE, HoldLosses.NOT_OWNER_AT_RELEASE);
                throw hold.lossOrNull();
            }
            if (last) {
                events.holdEnded(hold, HoldEnding.RELEASED);
            }
            if (last && holdsLeft > 0) {
                // the store counted a re-entry whose reply never reached us: drop it so the lock frees now
                store.abandon(target, hold.kind, hold.owner);
            }
            return null;
        });
    }

    /**
     * Gives back one hold, but keeps the lock held until {@code minimumHoldNanos} have passed since
     * the hold began: when the last hold is given back earlier, its lease is set to what is left of
     * the minimum (renewals stop) and the store frees the lock when that ends; otherwise, and for a
     * hold that is not the caller's last, a plain {@link #release(Hold, boolean)}. The hold began
     * when its grant came back, after the store started the lease, so the lock is held at least the
     * minimum. Fails as {@code release} does, and with {@link LockBackendException} when the lease
     * could not be set (over Redlock: on no quorum): the lock then stays until its lease ends.
     */
    CompletableFuture<Void> release(Hold hold, boolean last, long minimumHoldNanos) {
        long keepNanos = hold.heldSinceNanos + minimumHoldNanos - ticker.nanoTime();
        if (!last || minimumHoldNanos <= 0 || keepNanos <= 0) {
            return release(hold, last);
        }
        forget.accept(hold);
        LockLostException loss = hold.lossOrNull();
        if (loss != null) {
            return CompletableFuture.failedFuture(loss);
        }
        long keepMs = TimeUnit.NANOSECONDS.toMillis(keepNanos) + 1;
        return store.renew(List.of(hold.snapshot()), keepMs).handle((renewals, error) -> {
            Renewal outcome = error == null ? renewals[0] : Renewal.UNKNOWN;
            if (outcome == Renewal.GONE) {
                losses.lost(hold, LossCause.GONE, HoldLosses.NOT_OWNER_AT_RELEASE);
                throw hold.lossOrNull();
            }
            events.holdEnded(hold, HoldEnding.RELEASED);
            if (outcome == Renewal.UNKNOWN) {
                String what = hold.kind.label() + " '" + hold.name + "': its lease could not be set to the " + keepMs
                        + " ms left of its minimum hold; it stays held until its lease (" + hold.leaseMs + " ms) ends";
                throw error != null ? Failures.extend((LockBackendException) Failures.unwrap(error), "; " + what)
                        : new LockBackendException(what + " (no quorum answered)", null, hold.name, List.of());
            }
            return null;
        });
    }
}
