package dev.dlock.internal;

import dev.dlock.LockBackendException;
import dev.dlock.LockInfo;
import dev.dlock.LockListener;
import dev.dlock.LockLostException;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.LockObserver;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.acquire.LocalHandoff;
import dev.dlock.internal.acquire.WakeUps;
import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.hold.ClientRecord;
import dev.dlock.internal.hold.HandoverRenewal;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldLosses;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.hold.Watchdog;
import dev.dlock.internal.observe.LockEvents;
import dev.dlock.internal.observe.LockInspector;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.StoreContext;
import dev.dlock.internal.store.StoreFactory;
import dev.dlock.internal.store.WakeUpSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every lock of one client shares, and the one place that wires it: the store (whichever the
 * builder chose), the wake-ups, the watchdog, the registry of holds (so {@code close()}
 * can release them), the local handoff, the loss reports and the client's identity. It starts
 * acquisitions, registers and releases holds; each of those pieces depends only on the ones it
 * uses, never back on the engine. Not part of the API.
 */
public final class LockEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);
    /** How a message on the client's channel that hands a lock to one of its waiters starts. */
    private static final String HANDOFF_NOTICE = "handoff\t";

    private final LockStore store;
    private final String keyPrefix;
    private final long watchdogLeaseMs;
    private final long closeBoundMs;
    private final Ticker ticker;
    private final ClientIdentity identity;
    private final ClientRecord clientRecord;
    private final HoldRegistry holds = new HoldRegistry();
    private final HoldLosses losses;
    private final LockEvents events;
    private final WakeUps wakeUps;
    private final LocalHandoff handoff;
    private final Watchdog watchdog;
    private final HandoverRenewal handoverRenewal;
    private final LockInspector inspector;
    private final Acquisition.Context acquireContext;
    /** The timers that declare explicit-lease holds lost when their lease ends. */
    private final Map<Hold, ScheduledFuture<?>> leaseTimers = new ConcurrentHashMap<>();
    /** The client's admission to each semaphore it uses. */
    private final PermitGates permitGates = new PermitGates();
    private volatile boolean closed;
    private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();

    /**
     * The engine of a client on the store the factory opens (which the builder chose). Closing
     * the engine closes the store.
     *
     * @throws dev.dlock.LockBackendException the store cannot be reached
     */
    public static LockEngine start(Settings settings, StoreFactory stores, List<LockListener> listeners,
                                   List<LockObserver> observers) {
        return new LockEngine(settings, stores, listeners, observers, Ticker.system());
    }

    /** @param ticker the clock and timer of every deadline, validity and renewal */
    public LockEngine(Settings settings, StoreFactory stores, List<LockListener> listeners, Ticker ticker) {
        this(settings, stores, listeners, List.of(), ticker);
    }

    private LockEngine(Settings settings, StoreFactory stores, List<LockListener> listeners,
                       List<LockObserver> observers, Ticker ticker) {
        this.ticker = ticker;
        this.events = new LockEvents(observers, settings.slowLocks(), ticker);
        this.store = stores.open(new StoreContext(settings, ticker, events.observer()));
        this.keyPrefix = settings.keyPrefix();
        this.watchdogLeaseMs = settings.defaultLease().toMillis();
        this.closeBoundMs = settings.closeBoundMs();
        this.identity = new ClientIdentity(settings.clientName());
        this.losses = new HoldLosses(listeners, events);
        this.wakeUps = new WakeUps(store.wakeUps());
        this.handoff = new LocalHandoff(store, wakeUps, holds, losses);
        this.clientRecord = new ClientRecord(store, identity, ticker, holds);
        this.watchdog = new Watchdog(store, ticker, losses, events, clientRecord, watchdogLeaseMs,
                settings.renewBatch());
        this.handoverRenewal = new HandoverRenewal(store, ticker, losses, holds);
        this.inspector = new LockInspector(store, keyPrefix);
        this.acquireContext = new Acquisition.Context(store, wakeUps, handoff, identity, ticker, settings,
                events);
        events.startWarnings(holds, inspector);
        listenForForcedReleases();
    }

    /**
     * A forced release publishes "key\towner" on the channel of each holder's client
     * ({@code force_release.lua}): the loss is heard within a round trip instead of at the next
     * renewal. Should the subscription or a message fail, the watchdog, a release or the hold's
     * own clock still find the loss. A release that hands a lock to a queued waiter of this
     * client tells it there too ("handoff\tchannel\tmessage", lib/next_waiter.lua), so that no
     * other client wakes: the message goes on to the waiters of that lock's channel.
     */
    private void listenForForcedReleases() {
        String channel = WakeUpSource.clientChannel(keyPrefix, identity.clientId());
        wakeUps.listen(channel, this::onClientMessage).whenComplete((ok, error) -> {
            if (error != null) {
                LOG.debug("not subscribed to {}: forced releases are noticed at the next renewal", channel, error);
            }
        });
    }

    private void onClientMessage(String message) {
        if (message.startsWith(HANDOFF_NOTICE)) {
            int tab = message.indexOf('\t', HANDOFF_NOTICE.length());
            if (tab > 0) {
                wakeUps.onMessage(message.substring(HANDOFF_NOTICE.length(), tab), message.substring(tab + 1));
            }
            return;
        }
        onForcedRelease(message);
    }

    private void onForcedRelease(String message) {
        int tab = message.indexOf('\t');
        if (tab < 0) {
            return;
        }
        String key = message.substring(0, tab);
        String owner = message.substring(tab + 1);
        for (Hold hold : holds.snapshot()) {
            if (hold.owner.equals(owner) && hold.target.key().equals(key)) {
                losses.lost(hold, LossCause.FORCE_RELEASED, "it was force-released (forceUnlock or 'dlock release --force'); the store told "
                        + "its client at once");
            }
        }
    }

    /** Where the locks live, for messages. */
    public String describe() {
        return store.describe();
    }

    /** See {@link Settings#closeBoundMs()}. */
    public long closeBoundMs() {
        return closeBoundMs;
    }

    public long watchdogLeaseMs() {
        return watchdogLeaseMs;
    }

    public Ticker ticker() {
        return ticker;
    }

    public PermitGates permitGates() {
        return permitGates;
    }

    public LockTarget target(String name) {
        return LockTarget.of(keyPrefix, name);
    }

    /** The holds of this client, thread-bound ones by thread. */
    public HoldRegistry holds() {
        return holds;
    }

    /**
     * Starts the acquire loop for a fresh hold of the current thread.
     *
     * @param waitNanos     how long to wait; negative: without bound
     * @param downgradeFrom read lock: the owner id of the calling thread's write hold, else ""
     */
    public Acquisition acquire(LockTarget target, LockKind kind, long leaseMs, long waitNanos, String downgradeFrom) {
        requireOpen();
        clientRecord.beforeAcquire(leaseMs);
        return track(new Acquisition(acquireContext, target, kind, identity.ownerPrefix(), identity.holderDescription(),
                leaseMs, false, waitNanos, downgradeFrom).start());
    }

    /** Starts the acquire loop for one permit of a semaphore of {@code permits} permits. */
    public Acquisition acquirePermit(LockTarget target, int permits, long leaseMs, long waitNanos) {
        requireOpen();
        clientRecord.beforeAcquire(leaseMs);
        return new Acquisition(acquireContext, target, LockKind.PERMIT, identity.ownerPrefix(),
                identity.holderDescription(), leaseMs, false, waitNanos, "").withPermits(permits).start();
    }

    /** Re-enters a hold of the current thread: one attempt under the hold's owner id. */
    public Acquisition reenter(Hold held, long leaseMs) {
        requireOpen();
        return track(new Acquisition(acquireContext, held.target, held.kind, held.owner, identity.holderDescription(),
                leaseMs, true, 0, "").start());
    }

    /** Keeps the acquisition known until it ends, so that {@link #close()} can end its wait. */
    private Acquisition track(Acquisition acquisition) {
        waiting.add(acquisition);
        acquisition.result().whenComplete((grant, error) -> waiting.remove(acquisition));
        if (closed) {
            // close() may have looked at the waiting ones before this one was added
            acquisition.abortBecauseClientClosed();
        }
        return acquisition;
    }

    public void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the LockClient is closed");
        }
    }

    /** Files a granted acquisition as a hold; {@code renewed}: the watchdog keeps its lease. */
    public Hold register(Acquisition acquisition, AcquireReply.Granted grant, boolean renewed) {
        Hold hold = new Hold(acquisition.target(), acquisition.kind(), acquisition.owner(), acquisition.holder(),
                grant.token(), acquisition.leaseMs(), grant.validUntilNanos(), ticker, acquisition.site());
        holds.add(hold);
        events.holdStarted(hold);
        handoff.registered(hold);
        if (renewed) {
            watchdog.add(hold);
        } else {
            loseAtLeaseEnd(hold);
        }
        long shortHandoverFrom = acquisition.shortHandoverFromNanos();
        if (shortHandoverFrom != 0) {
            handoverRenewal.schedule(hold, shortHandoverFrom, renewed);
        }
        return hold;
    }

    /**
     * An explicit lease is never renewed: when it runs out on this client's clock the hold is
     * lost (listeners, whenLost), without waiting for Redis, which frees it at about that time.
     */
    private void loseAtLeaseEnd(Hold hold) {
        long leftNanos = hold.validUntilNanos - ticker.nanoTime();
        ScheduledFuture<?> timer = ticker.schedule(() -> {
            if (!holds.isRegistered(hold)) {
                return;
            }
            if (hold.validUntilNanos - ticker.nanoTime() > 0) {
                // moved on since (a lock handed over from the queue is renewed once to its lease)
                leaseTimers.remove(hold);
                loseAtLeaseEnd(hold);
                return;
            }
            losses.lost(hold, LossCause.EXPIRED, "its lease of " + hold.leaseMs + " ms ran out on this client's clock");
        }, Math.max(0, leftNanos), TimeUnit.NANOSECONDS);
        leaseTimers.put(hold, timer);
        hold.onLoss(() -> {
            timer.cancel(false);
            leaseTimers.remove(hold);
        });
    }

    /** Stops renewals and forgets the hold; called before the last release is sent. */
    private void forget(Hold hold) {
        watchdog.remove(hold);
        holds.remove(hold);
        ScheduledFuture<?> leaseTimer = leaseTimers.remove(hold);
        if (leaseTimer != null) {
            leaseTimer.cancel(false);
        }
    }

    /**
     * Gives back one hold in Redis. Completes exceptionally with {@link LockLostException} when
     * the caller no longer owns the lock, or {@link LockBackendException} when Redis did not answer.
     *
     * @param last the caller's last hold: renewals stop before the release is sent
     */
    public CompletableFuture<Void> release(Hold hold, boolean last) {
        if (last) {
            forget(hold);
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
                // Redis counted a re-entry whose reply never reached us: drop it so the lock frees now
                store.abandon(target, hold.kind, hold.owner);
            }
            return null;
        });
    }

    /**
     * Gives back one hold, but keeps the lock held until {@code minimumHoldNanos} have passed since
     * the hold began: when the last hold is given back earlier, its lease is set to what is left of
     * the minimum (renewals stop) and Redis frees the lock when that ends; otherwise, and for a
     * hold that is not the caller's last, a plain {@link #release(Hold, boolean)}. The hold began
     * when its grant came back, after Redis started the lease, so the lock is held at least the
     * minimum. Fails as {@code release} does, and with {@link LockBackendException} when the lease
     * could not be set (over Redlock: on no quorum): the lock then stays until its lease ends.
     */
    public CompletableFuture<Void> release(Hold hold, boolean last, long minimumHoldNanos) {
        long keepNanos = hold.heldSinceNanos + minimumHoldNanos - ticker.nanoTime();
        if (!last || minimumHoldNanos <= 0 || keepNanos <= 0) {
            return release(hold, last);
        }
        forget(hold);
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

    /** Best effort: drops every hold of the owner (an acquisition's grant that raced its cancel). */
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return store.abandon(target, kind, owner);
    }

    /** Marks the hold lost and tells the observers and listeners, once. */
    public void lost(Hold hold, LossCause cause, String reason) {
        losses.lost(hold, cause, reason);
    }

    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return store.forceRelease(target);
    }

    /** The lock's state as the kind sees it. */
    public CompletableFuture<LockInfo> inspect(LockTarget target, LockKind kind) {
        return inspector.inspect(target, kind);
    }

    /** Every held lock whose name matches the glob {@code namePattern}, sorted by name. */
    public CompletableFuture<List<LockInfo>> list(String namePattern) {
        requireOpen();
        return inspector.list(namePattern);
    }

    /** Releases whatever this client holds, best effort, then disconnects. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Acquisition acquisition : waiting) {
            acquisition.abortBecauseClientClosed();
        }
        watchdog.stop();
        events.stop();
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (Hold hold : holds.snapshot()) {
            forget(hold);
            events.holdEnded(hold, HoldEnding.RELEASED);
            hold.markLost("the LockClient was closed, which released it");
            releases.add(store.abandon(hold.target, hold.kind, hold.owner));
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(closeBoundMs, TimeUnit.MILLISECONDS);
            // after the releases on each connection: the record names no holder any more
            clientRecord.forget().get(closeBoundMs, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("not every lock could be released on close; their leases free them", e);
        } finally {
            ticker.shutdown();
            losses.shutdown();
            store.close();
        }
    }
}
