package dev.dlock.internal;

import dev.dlock.LockBackendException;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import dev.dlock.LockListener;
import dev.dlock.LockLostException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every lock of one client shares: the store (one Redis or a Redlock quorum), the pub/sub wake-ups, the watchdog, the
 * registry of holds (so {@code close()} can release them), the listeners, and the client's
 * identity. Not part of the API.
 */
public final class LockEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);
    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();
    private static final String NOT_OWNER_AT_RELEASE =
            "it was no longer its owner's at release (lease expired or force-released); the lock was left untouched";

    private final LockStore store;
    private final String keyPrefix;
    private final long watchdogLeaseMs;
    private final long commandTimeoutMs;
    private final long waiterTimeoutMs;
    private final String clientId;
    private final String holderPrefix;
    private final List<LockListener> listeners;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService listenerExecutor;
    private final WakeUps wakeUps;
    private final Watchdog watchdog;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Hold> threadHolds = new ConcurrentHashMap<>();
    private final AtomicLong ownerSequence = new AtomicLong();
    private final ParkedWaiters parkedWaiters = new ParkedWaiters();
    /** This client's reentrant holds by lock key: a new waiter of a lock held here need not ask Redis. */
    private final ConcurrentHashMap<String, Hold> localHolds = new ConcurrentHashMap<>();
    /**
     * Locks being handed from one hold of this client to a waiter of it, or just handed to one that
     * has not registered its hold yet: until when they are known valid.
     */
    private final ConcurrentHashMap<String, Long> handedOver = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** A client on one Redis. */
    public static LockEngine singleNode(RedisNode node, String keyPrefix, Duration watchdogLease, Duration commandTimeout,
                                        Duration waiterTimeout, String clientName, List<LockListener> listeners) {
        return new LockEngine(new SingleNodeStore(node, commandTimeout.toMillis()), keyPrefix, watchdogLease,
                commandTimeout, waiterTimeout, clientName, listeners);
    }

    /**
     * A Redlock client over independent masters.
     *
     * @param nodeTimeout per-node timeout; {@link Duration#ZERO} to derive it from each lease
     */
    public static LockEngine redlock(List<RedisNode> nodes, Duration nodeTimeout, String keyPrefix, Duration watchdogLease,
                                     Duration commandTimeout, Duration waiterTimeout, String clientName,
                                     List<LockListener> listeners) {
        return new LockEngine(new QuorumStore(nodes, keyPrefix, commandTimeout.toMillis(), nodeTimeout.toMillis()),
                keyPrefix, watchdogLease, commandTimeout, waiterTimeout, clientName, listeners);
    }

    private LockEngine(LockStore store, String keyPrefix, Duration watchdogLease, Duration commandTimeout,
                       Duration waiterTimeout, String clientName, List<LockListener> listeners) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.watchdogLeaseMs = watchdogLease.toMillis();
        this.commandTimeoutMs = commandTimeout.toMillis();
        this.waiterTimeoutMs = waiterTimeout.toMillis();
        this.clientId = randomId();
        this.holderPrefix = clean(clientName) + "\t" + clean(HOST) + "\t" + PID + "\t";
        this.listeners = List.copyOf(listeners);
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, daemonThreads("dlock-timer"));
        timers.setRemoveOnCancelPolicy(true);
        this.scheduler = timers;
        this.listenerExecutor = Executors.newSingleThreadExecutor(daemonThreads("dlock-listener"));
        this.wakeUps = new WakeUps(store.nodes(), commandTimeoutMs);
        this.watchdog = new Watchdog(this, watchdogLeaseMs);
    }

    LockStore store() {
        return store;
    }

    /** Where the locks live, for messages. */
    public String describe() {
        return store.describe();
    }

    /** Upper bound of the random pause after a split Redlock vote. */
    long splitBackoffMs() {
        return Math.max(2, Math.min(50, watchdogLeaseMs / 100));
    }

    WakeUps wakeUps() {
        return wakeUps;
    }

    ParkedWaiters parkedWaiters() {
        return parkedWaiters;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    long commandTimeoutMs() {
        return commandTimeoutMs;
    }

    long watchdogLeaseMs() {
        return watchdogLeaseMs;
    }

    /** How long a queued waiter (fair lock, waiting writer) keeps its place without asking again. */
    long waiterTimeoutMs() {
        return waiterTimeoutMs;
    }

    /** How long a waiter sleeps when the holder's key has no TTL (should not happen): one watchdog lease. */
    long idleRetryNanos() {
        return TimeUnit.MILLISECONDS.toNanos(watchdogLeaseMs);
    }

    LockTarget target(String name) {
        return LockTarget.of(keyPrefix, name);
    }

    /**
     * The owner id prefix of the current thread: client id and thread id. Each acquire attempt adds
     * a sequence number (see {@link Acquisition}), so owner ids are never reused.
     */
    String ownerPrefix() {
        return clientId + ":" + Thread.currentThread().getId();
    }

    long nextOwnerSequence() {
        return ownerSequence.incrementAndGet();
    }

    String holderDescription() {
        return holderPrefix + clean(Thread.currentThread().getName());
    }

    ConcurrentHashMap<String, Hold> threadHolds() {
        return threadHolds;
    }

    /**
     * Starts the acquire loop.
     *
     * @param downgradeFrom read lock: the owner id of the calling thread's write hold, else ""
     */
    Acquisition acquire(LockTarget target, LockKind kind, String owner, long leaseMs, boolean reentry, long waitNanos,
                        String downgradeFrom) {
        if (closed) {
            throw new IllegalStateException("the LockClient is closed");
        }
        return new Acquisition(this, target, kind, owner, holderDescription(), leaseMs, reentry, waitNanos, downgradeFrom)
                .start();
    }

    Hold register(Acquisition acquisition, AcquireReply.Granted grant, boolean renewed) {
        Hold hold = new Hold(acquisition.target(), acquisition.kind(), acquisition.owner(), acquisition.holder(), grant.token(),
                acquisition.leaseMs(), grant.validUntilNanos());
        holds.add(hold);
        if (hold.kind == LockKind.REENTRANT) {
            localHolds.put(hold.target.key(), hold);
            handedOver.remove(hold.target.key());
        }
        if (renewed) {
            watchdog.add(hold);
        }
        return hold;
    }

    /** Stops renewals and forgets the hold; called before the last release is sent. */
    void forget(Hold hold) {
        watchdog.remove(hold);
        holds.remove(hold);
        localHolds.remove(hold.target.key(), hold);
    }

    /**
     * Until when this client is known to hold the reentrant lock of this key (monotonic nanos):
     * through a registered hold, or a handoff to one of its waiters that has not registered its
     * hold yet; 0 when it is not known to.
     */
    long heldHereUntilNanos(String key) {
        Hold hold = localHolds.get(key);
        if (hold != null && !hold.isKnownInvalid()) {
            return hold.validUntilNanos;
        }
        Long handed = handedOver.get(key);
        return handed == null ? 0 : handed;
    }

    /** A handed-over grant that nobody will register (its waiter had stopped waiting). */
    void handoverDropped(String key) {
        handedOver.remove(key);
    }

    /**
     * Gives back one hold in Redis. Completes exceptionally with {@link LockLostException} when
     * the caller no longer owns the lock, or {@link LockBackendException} when Redis did not answer.
     *
     * @param last the caller's last hold: renewals stop before the release is sent
     */
    CompletableFuture<Void> release(Hold hold, boolean last) {
        if (last) {
            forget(hold);
        }
        LockLostException loss = hold.lossOrNull();
        if (loss != null) {
            return CompletableFuture.failedFuture(loss);
        }
        LockTarget target = hold.target;
        if (last && hold.kind == LockKind.REENTRANT) {
            Acquisition next = parkedWaiters.claimFirst(target.key());
            if (next != null) {
                return handOff(hold, next);
            }
        }
        return store.release(target, hold.kind, hold.owner, hold.token).handle((holdsLeft, error) -> {
            if (error != null) {
                LockBackendException failure = (LockBackendException) Failures.unwrap(error);
                throw new LockBackendException(failure.getMessage() + "; the lease (" + hold.leaseMs
                        + " ms) frees the lock by itself", failure);
            }
            if (holdsLeft < 0) {
                lost(hold, NOT_OWNER_AT_RELEASE);
                throw hold.lossOrNull();
            }
            if (last && holdsLeft > 0) {
                // Redis counted a re-entry whose reply never reached us: drop it so the lock frees now
                store.abandon(target, hold.kind, hold.owner);
            }
            return null;
        });
    }

    /**
     * The last release of a hold with a waiter of this client parked on the lock: hands it to
     * that waiter in the same script, or releases it for everyone when other clients wait too.
     * Fails like {@link #release}; the waiter then tries on its own again.
     */
    private CompletableFuture<Void> handOff(Hold hold, Acquisition next) {
        LockTarget target = hold.target;
        String nextOwner = next.ownerForHandoff();
        int ownSubscriptions = wakeUps.isJoined(target.channel()) ? 1 : 0;
        // held here all along if the handoff succeeds: new waiters of this client need not ask Redis
        handedOver.put(target.key(), hold.validUntilNanos);
        return store.handOff(target, hold.owner, ownSubscriptions, nextOwner, next.leaseMs(), next.holder())
                .handle((reply, error) -> {
                    if (error != null) {
                        handedOver.remove(target.key());
                        // outcome unknown: the lock may still be the releaser's, or the waiter's already
                        store.abandon(target, hold.kind, hold.owner);
                        store.abandon(target, hold.kind, nextOwner);
                        next.resume();
                        LockBackendException failure = (LockBackendException) Failures.unwrap(error);
                        throw new LockBackendException(failure.getMessage() + "; a best-effort release was sent", failure);
                    }
                    if (reply.grant() != null) {
                        // the next holder registers its hold once its thread runs
                        handedOver.put(target.key(), reply.grant().validUntilNanos());
                        next.takeOver(reply.grant());
                        return null;
                    }
                    handedOver.remove(target.key());
                    next.resume();
                    if (reply.notOwner()) {
                        lost(hold, NOT_OWNER_AT_RELEASE);
                        throw hold.lossOrNull();
                    }
                    return null;
                });
    }

    CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return store.forceRelease(target);
    }

    /** The lock's state as the kind sees it; {@link LockKind#REENTRANT} shows whoever holds it. */
    CompletableFuture<LockInfo> inspect(LockTarget target, LockKind kind) {
        CompletableFuture<Long> waiting = store.waitingClients(target).exceptionally(error -> 0L);
        return store.inspect(target, kind).thenCombine(waiting, (state, waitingClients) -> {
            if (!state.isHeld()) {
                return new LockInfo(target.name(), target.key(), Optional.empty(), 0, Duration.ZERO, 0, waitingClients);
            }
            return new LockInfo(target.name(), target.key(), Optional.of(parseHolder(state.holder())), state.holdCount(),
                    Duration.ofMillis(Math.max(0, state.pttlMs())), state.token(), waitingClients);
        });
    }

    /** Every held lock whose name matches the glob {@code namePattern}, sorted by name. */
    public CompletableFuture<List<LockInfo>> list(String namePattern) {
        String keyPattern = escapeGlob(keyPrefix) + "{" + namePattern + "}";
        return store.scan(keyPattern).thenCompose(keys -> {
            List<CompletableFuture<LockInfo>> infos = new ArrayList<>();
            for (String key : keys) {
                String name = key.substring(keyPrefix.length() + 1, key.length() - 1);
                infos.add(inspect(target(name), LockKind.REENTRANT));
            }
            return CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new)).thenApply(done -> infos.stream()
                    .map(CompletableFuture::join)
                    .filter(LockInfo::isLocked)
                    .sorted(Comparator.comparing(LockInfo::name))
                    .toList());
        });
    }

    private static String escapeGlob(String text) {
        return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }

    /** Marks the hold lost and tells the listeners, once. */
    void lost(Hold hold, String reason) {
        forget(hold);
        if (hold.markLost(reason)) {
            LockLostException loss = hold.lossOrNull();
            LOG.warn(loss.getMessage());
            for (LockListener listener : listeners) {
                listenerExecutor.execute(() -> {
                    try {
                        listener.onLockLost(loss);
                    } catch (RuntimeException e) {
                        LOG.warn("lock listener {} failed", listener, e);
                    }
                });
            }
        }
    }

    /** Releases whatever this client holds, best effort, then disconnects. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        watchdog.stop();
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (Hold hold : List.copyOf(holds)) {
            forget(hold);
            hold.markLost("the LockClient was closed, which released it");
            releases.add(store.abandon(hold.target, hold.kind, hold.owner));
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(commandTimeoutMs + 1000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("not every lock could be released on close; their leases free them", e);
        } finally {
            scheduler.shutdownNow();
            listenerExecutor.shutdown();
            store.close();
        }
    }

    private static LockHolder parseHolder(String recorded) {
        String[] parts = recorded.split("\t", 4);
        if (parts.length < 4) {
            return new LockHolder(recorded, "", -1, "");
        }
        long pid;
        try {
            pid = Long.parseLong(parts[2]);
        } catch (NumberFormatException e) {
            pid = -1;
        }
        return new LockHolder(parts[0], parts[1], pid, parts[3]);
    }

    private static String clean(String text) {
        return text.replace('\t', ' ').replace('\n', ' ');
    }

    private static String randomId() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static String hostName() {
        String fromEnv = System.getenv("HOSTNAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        try {
            Path etcHostname = Path.of("/etc/hostname");
            if (Files.isReadable(etcHostname)) {
                String name = Files.readString(etcHostname).trim();
                if (!name.isEmpty()) {
                    return name;
                }
            }
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }

    private static ThreadFactory daemonThreads(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
