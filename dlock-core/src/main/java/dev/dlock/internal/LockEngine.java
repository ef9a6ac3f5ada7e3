package dev.dlock.internal;

import dev.dlock.LockInfo;
import dev.dlock.LockListener;
import dev.dlock.LockObserver;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.acquire.AcquireContext;
import dev.dlock.internal.acquire.Acquisition;
import dev.dlock.internal.acquire.AllOrNoneAcquisition;
import dev.dlock.internal.acquire.ClientNotices;
import dev.dlock.internal.acquire.LocalHandoff;
import dev.dlock.internal.acquire.WakeUps;
import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.hold.ClientRecord;
import dev.dlock.internal.hold.HandoverRenewal;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldLosses;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.hold.LeaseTimers;
import dev.dlock.internal.hold.Watchdog;
import dev.dlock.internal.observe.LockEvents;
import dev.dlock.internal.observe.LockInspector;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.StoreAllOrNone;
import dev.dlock.internal.store.StoreContext;
import dev.dlock.internal.store.StoreFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    private final LockInspector inspector;
    private final AcquireContext acquireContext;
    private final HoldFiling filing;
    private final HoldReleases releases;
    /** The client's admission to each semaphore it uses. */
    private final PermitGates permitGates = new PermitGates();
    private final Callbacks callbacks;
    private volatile boolean closed;
    /** When the last lock kept for a minimum hold frees itself, on the ticker's clock (the start: none). */
    private final AtomicLong minimumHoldsEndNanos;
    private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();
    private final Set<AllOrNoneAcquisition> waitingForAll = ConcurrentHashMap.newKeySet();

    /**
     * The engine of a client on the store the factory opens (which the builder chose). Closing
     * the engine closes the store.
     *
     * @throws dev.dlock.LockBackendException the store cannot be reached
     */
    public static LockEngine start(Settings settings, StoreFactory stores, List<LockListener> listeners,
                                   List<LockObserver> observers, Executor callbackExecutor) {
        return new LockEngine(settings, stores, listeners, observers, Ticker.system(), callbackExecutor);
    }

    /** @param ticker the clock and timer of every deadline, validity and renewal */
    public LockEngine(Settings settings, StoreFactory stores, List<LockListener> listeners, Ticker ticker) {
        this(settings, stores, listeners, List.of(), ticker, Callbacks.DEFAULT_EXECUTOR);
    }

    private LockEngine(Settings settings, StoreFactory stores, List<LockListener> listeners,
                       List<LockObserver> observers, Ticker ticker, Executor callbackExecutor) {
        this.callbacks = new Callbacks(callbackExecutor);
        this.ticker = ticker;
        this.minimumHoldsEndNanos = new AtomicLong(ticker.nanoTime());
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
        this.filing = new HoldFiling(holds, events, handoff, watchdog, new LeaseTimers(ticker, holds, losses),
                new HandoverRenewal(store, ticker, losses, holds), ticker);
        this.releases = new HoldReleases(store, handoff, events, losses, ticker, filing::forget);
        this.inspector = new LockInspector(store, keyPrefix);
        this.acquireContext = new AcquireContext(store, wakeUps, handoff, identity, ticker, settings,
                events);
        events.startWarnings(holds, inspector);
        ClientNotices.listen(keyPrefix, identity.clientId(), store, wakeUps, holds, losses);
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

    /** Where the futures handed to callers complete. */
    public Callbacks callbacks() {
        return callbacks;
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
        return track(new Acquisition(acquireContext, target, LockKind.PERMIT, identity.ownerPrefix(),
                identity.holderDescription(), leaseMs, false, waitNanos, "").withPermits(permits).start());
    }

    /**
     * Re-enters a hold of the current thread: one attempt under the hold's owner id.
     *
     * @param waitNanos the caller's wait, which bounds the attempt; negative: without bound
     */
    public Acquisition reenter(Hold held, long leaseMs, long waitNanos) {
        requireOpen();
        return track(new Acquisition(acquireContext, held.target, held.kind, held.owner, identity.holderDescription(),
                leaseMs, true, waitNanos, "").start());
    }

    /**
     * Starts a multi-lock's acquire of every target at once, all or none, for a fresh hold of each
     * by the current thread; null where the store takes the names one by one instead.
     *
     * @param waitNanos how long to wait; negative: without bound
     */
    public AllOrNoneAcquisition acquireAll(List<LockTarget> targets, long leaseMs, long waitNanos) {
        StoreAllOrNone allOrNone = store.allOrNone().orElse(null);
        if (allOrNone == null) {
            return null;
        }
        requireOpen();
        clientRecord.beforeAcquire(leaseMs);
        AllOrNoneAcquisition acquisition = new AllOrNoneAcquisition(acquireContext, allOrNone, targets,
                identity.ownerPrefix(), identity.holderDescription(), leaseMs, waitNanos);
        waitingForAll.add(acquisition);
        acquisition.result().whenComplete((grants, error) -> waitingForAll.remove(acquisition));
        if (closed) {
            acquisition.abortBecauseClientClosed();
        }
        return acquisition.start();
    }

    /** Whether a multi-lock's names are taken in one step, all or none ({@link #acquireAll}). */
    public boolean takesAllAtOnce() {
        return store.allOrNone().isPresent();
    }

    /** Files the grants of an all-or-none acquire as holds, one per target, in their order. */
    public List<Hold> registerAll(AllOrNoneAcquisition acquisition, List<AcquireReply.Granted> grants, boolean renewed) {
        return filing.registerAll(acquisition, grants, renewed);
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
        return filing.register(acquisition, grant, renewed);
    }

    /**
     * Gives back one hold; see {@link HoldReleases#release(Hold, boolean)}.
     *
     * @param last the caller's last hold: renewals stop before the release is sent
     */
    public CompletableFuture<Void> release(Hold hold, boolean last) {
        return releases.release(hold, last);
    }

    /** Gives back one hold, keeping the lock a minimum time; see {@link HoldReleases#release(Hold, boolean, long)}. */
    public CompletableFuture<Void> release(Hold hold, boolean last, long minimumHoldNanos) {
        long keptUntilNanos = hold.heldSinceNanos + minimumHoldNanos;
        long keptNanos = keptUntilNanos - ticker.nanoTime();
        if (last && minimumHoldNanos > 0 && keptNanos > 0) {
            // the client's record names the holder of the kept lock until it frees itself, also
            // after this client closes (close() leaves the record then)
            clientRecord.beforeAcquire(TimeUnit.NANOSECONDS.toMillis(keptNanos) + 1);
            minimumHoldsEndNanos.accumulateAndGet(keptUntilNanos, (end, other) -> other - end > 0 ? other : end);
        }
        return releases.release(hold, last, minimumHoldNanos);
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
        for (AllOrNoneAcquisition acquisition : waitingForAll) {
            acquisition.abortBecauseClientClosed();
        }
        watchdog.stop();
        events.stop();
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (Hold hold : holds.snapshot()) {
            filing.forget(hold);
            events.holdEnded(hold, HoldEnding.RELEASED);
            hold.markLost(LossCause.CLIENT_CLOSED, "the LockClient was closed, which released it");
            releases.add(store.abandon(hold.target, hold.kind, hold.owner));
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(closeBoundMs, TimeUnit.MILLISECONDS);
            // after the releases on each connection: the record names no holder any more
            if (minimumHoldsEndNanos.get() - ticker.nanoTime() <= 0) {
                clientRecord.forget().get(closeBoundMs, TimeUnit.MILLISECONDS);
            }
        } catch (Exception e) {
            LOG.warn("not every lock could be released on close; their leases free them", e);
        } finally {
            ticker.shutdown();
            losses.shutdown();
            store.close();
        }
    }
}
