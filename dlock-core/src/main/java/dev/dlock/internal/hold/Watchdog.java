package dev.dlock.internal.hold;

import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.Renewal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Renews the leases of all watchdog holds of a client together: one timer per client (not per
 * lock) fires every third of the lease and renews the holds in batches (500 keys by default) per
 * script call. A hold whose key is gone or owned by someone else is lost at once; a hold that
 * cannot be renewed because the store does not answer is lost when its known validity runs out (a
 * timer set at the failed renewal fires then, unless a later renewal has moved the validity on).
 * A hold lost by any path leaves the watchdog by itself.
 */
public final class Watchdog {

    private final LockStore store;
    private final Ticker ticker;
    private final HoldLosses losses;
    private final HoldEvents events;
    private final ClientRecord clientRecord;
    private final long periodNanos;
    /** When the last round started (or found nothing to renew); touched by the timer thread only. */
    private long lastRoundNanos;
    private final long leaseMs;
    private final int batchSize;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean renewing = new AtomicBoolean();
    private final ScheduledFuture<?> timer;

    /**
     * @param leaseMs   the lease every renewal sets
     * @param batchSize holds per renewal script call
     */
    public Watchdog(LockStore store, Ticker ticker, HoldLosses losses, HoldEvents events, ClientRecord clientRecord,
             long leaseMs, int batchSize) {
        this.store = store;
        this.clientRecord = clientRecord;
        this.ticker = ticker;
        this.losses = losses;
        this.events = events;
        this.leaseMs = leaseMs;
        this.batchSize = batchSize;
        long periodMs = Settings.renewalPeriodMs(leaseMs);
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
        this.lastRoundNanos = ticker.nanoTime();
        this.timer = ticker.scheduleAtFixedRate(this::renewAll, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    public void add(Hold hold) {
        holds.add(hold);
        hold.onLoss(() -> holds.remove(hold));
    }

    /** After this returns no renewal of the hold is sent. */
    public void remove(Hold hold) {
        holds.remove(hold);
    }

    public int size() {
        return holds.size();
    }

    public void stop() {
        timer.cancel(false);
    }

    private void renewAll() {
        long now = ticker.nanoTime();
        if (holds.isEmpty()) {
            // nothing was due: a hold added from now on is first due one period after its grant at most
            lastRoundNanos = now;
            return;
        }
        if (!renewing.compareAndSet(false, true)) {
            return;
        }
        try {
            List<Hold> all = new ArrayList<>(holds);
            events.renewalRound(all.size(), Math.max(0, now - lastRoundNanos - periodNanos));
            lastRoundNanos = now;
            // the holders' record must outlive the holds it names
            clientRecord.onRenewalRound(leaseMs);
            List<CompletableFuture<?>> batches = new ArrayList<>();
            for (int from = 0; from < all.size(); from += batchSize) {
                batches.add(renew(all.subList(from, Math.min(all.size(), from + batchSize))));
            }
            CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new))
                    .whenComplete((ok, error) -> renewing.set(false));
        } catch (RuntimeException e) {
            renewing.set(false);
            throw e;
        }
    }

    private CompletableFuture<?> renew(List<Hold> batch) {
        long sentAtNanos = ticker.nanoTime();
        return store.renew(batch.stream().map(Hold::snapshot).toList(), leaseMs).whenComplete((outcomes, error) -> {
            List<Unrenewed> unrenewed = new ArrayList<>();
            int renewed = 0;
            for (int i = 0; i < batch.size(); i++) {
                Hold hold = batch.get(i);
                Renewal outcome = error != null ? Renewal.UNKNOWN : outcomes[i];
                if (outcome == Renewal.RENEWED) {
                    hold.validUntilNanos = store.validUntilNanos(sentAtNanos, leaseMs);
                    renewed++;
                } else if (outcome == Renewal.GONE) {
                    if (holds.remove(hold)) {
                        losses.lost(hold, LossCause.GONE, "the watchdog found its key gone or owned by another owner "
                                + "(lease expired or force-released)");
                    }
                } else {
                    unrenewed.add(new Unrenewed(hold, hold.validUntilNanos));
                }
            }
            events.renewalBatch(renewed, unrenewed.size());
            // not renewed this time: unless a later renewal succeeds, each is lost when its validity
            // ends, not at the next renewal's failure, which can come a whole command (Redlock:
            // per-node) timeout after it
            loseWhenExpired(unrenewed, error);
        });
    }

    /** A hold a renewal did not reach, with its validity at that moment. */
    private record Unrenewed(Hold hold, long validUntilNanos) {
    }

    /**
     * Reports the holds whose validity has ended as lost, and checks the others again when the
     * earliest of them ends: one timer per failed batch, not one per hold, so an outage with many
     * holds does not fill the scheduler. A hold renewed since (its validity moved) is dropped.
     */
    private void loseWhenExpired(List<Unrenewed> unrenewed, Throwable error) {
        List<Unrenewed> pending = new ArrayList<>();
        long now = ticker.nanoTime();
        long earliestEnd = Long.MAX_VALUE;
        for (Unrenewed entry : unrenewed) {
            Hold hold = entry.hold();
            if (hold.validUntilNanos != entry.validUntilNanos() || !holds.contains(hold)) {
                continue;
            }
            long leftNanos = entry.validUntilNanos() - now;
            if (leftNanos <= 0) {
                lostUnrenewed(hold, error);
            } else {
                pending.add(entry);
                earliestEnd = Math.min(earliestEnd, leftNanos);
            }
        }
        if (!pending.isEmpty()) {
            ticker.schedule(() -> loseWhenExpired(pending, error), earliestEnd, TimeUnit.NANOSECONDS);
        }
    }

    private void lostUnrenewed(Hold hold, Throwable error) {
        if (holds.remove(hold)) {
            losses.lost(hold, LossCause.BACKEND_UNREACHABLE, "its lease could not be renewed before it ran out"
                    + (error != null ? ": " + Failures.unwrap(error).getMessage()
                    : store.isQuorum() ? " (no quorum answered)" : " (the store did not confirm a renewal)"));
        }
    }
}
