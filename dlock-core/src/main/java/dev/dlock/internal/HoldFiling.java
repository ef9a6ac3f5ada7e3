package dev.dlock.internal;

import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.acquire.AllOrNoneAcquisition;
import dev.dlock.internal.acquire.Attempts;
import dev.dlock.internal.acquire.LocalHandoff;
import dev.dlock.internal.hold.HandoverRenewal;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.hold.LeaseTimers;
import dev.dlock.internal.hold.Watchdog;
import dev.dlock.internal.observe.LockEvents;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.ArrayList;
import java.util.List;

/**
 * How a grant becomes a hold of the client, and how a hold is taken off again: filed in the
 * registry, told to the observers and the local handoff, kept alive by the watchdog or timed out
 * at the end of its explicit lease, renewed early when it was handed over for less than its
 * lease; and, before its last release or at close, taken off the registry, the watchdog and the
 * lease timers. It is apart from {@link LockEngine} because filing and forgetting must stay each
 * other's mirror (a piece that keeps a released hold renews it or declares it lost), which is
 * easiest to see with the two side by side, and because the steps are the same for one grant and
 * for an all-or-none acquire's grants.
 */
final class HoldFiling {

    private final HoldRegistry holds;
    private final LockEvents events;
    private final LocalHandoff handoff;
    private final Watchdog watchdog;
    private final LeaseTimers leaseTimers;
    private final HandoverRenewal handoverRenewal;
    private final Ticker ticker;

    HoldFiling(HoldRegistry holds, LockEvents events, LocalHandoff handoff, Watchdog watchdog, LeaseTimers leaseTimers,
               HandoverRenewal handoverRenewal, Ticker ticker) {
        this.holds = holds;
        this.events = events;
        this.handoff = handoff;
        this.watchdog = watchdog;
        this.leaseTimers = leaseTimers;
        this.handoverRenewal = handoverRenewal;
        this.ticker = ticker;
    }

    /** Files a granted acquisition as a hold; {@code renewed}: the watchdog keeps its lease. */
    Hold register(Acquisition acquisition, AcquireReply.Granted grant, boolean renewed) {
        Attempts attempts = acquisition.attempts();
        return register(acquisition.target(), acquisition.kind(), attempts.owner(), attempts.holder(), attempts.leaseMs(),
                grant, renewed, acquisition.site(), acquisition.shortHandoverFromNanos());
    }

    /** Files the grants of an all-or-none acquire as holds, one per target, in their order. */
    List<Hold> registerAll(AllOrNoneAcquisition acquisition, List<AcquireReply.Granted> grants, boolean renewed) {
        List<Hold> registered = new ArrayList<>();
        for (int i = 0; i < grants.size(); i++) {
            registered.add(register(acquisition.targets().get(i), LockKind.REENTRANT, acquisition.owners().get(i),
                    acquisition.holder(), acquisition.leaseMs(), grants.get(i), renewed, acquisition.site(), 0));
        }
        return registered;
    }

    private Hold register(LockTarget target, LockKind kind, String owner, String holder, long leaseMs,
                          AcquireReply.Granted grant, boolean renewed, StackTraceElement site, long shortHandoverFrom) {
        Hold hold = new Hold(target, kind, owner, holder, grant.token(), leaseMs, grant.validUntilNanos(), ticker, site);
        holds.add(hold);
        events.holdStarted(hold);
        handoff.registered(hold);
        if (renewed) {
            watchdog.add(hold);
        } else {
            leaseTimers.loseAtLeaseEnd(hold);
        }
        if (shortHandoverFrom != 0) {
            handoverRenewal.schedule(hold, shortHandoverFrom, renewed);
        }
        return hold;
    }

    /** Stops renewals and forgets the hold; called before the last release is sent. */
    void forget(Hold hold) {
        watchdog.remove(hold);
        holds.remove(hold);
        leaseTimers.cancel(hold);
    }
}
