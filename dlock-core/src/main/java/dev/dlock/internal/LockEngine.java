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
 * What every lock of one client shares: the node, the pub/sub wake-ups, the watchdog, the
 * registry of holds (so {@code close()} can release them), the listeners, and the client's
 * identity. Not part of the API.
 */
public final class LockEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LockEngine.class);
    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final RedisNode node;
    private final String keyPrefix;
    private final long watchdogLeaseMs;
    private final long commandTimeoutMs;
    private final String clientId;
    private final String holderPrefix;
    private final List<LockListener> listeners;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService listenerExecutor;
    private final WakeUps wakeUps;
    private final Watchdog watchdog;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Hold> threadHolds = new ConcurrentHashMap<>();
    private final AtomicLong handleSequence = new AtomicLong();
    private volatile boolean closed;

    public LockEngine(RedisNode node, String keyPrefix, Duration watchdogLease, Duration commandTimeout,
                      String clientName, List<LockListener> listeners) {
        this.node = node;
        this.keyPrefix = keyPrefix;
        this.watchdogLeaseMs = watchdogLease.toMillis();
        this.commandTimeoutMs = commandTimeout.toMillis();
        this.clientId = randomId();
        this.holderPrefix = clean(clientName) + "\t" + clean(HOST) + "\t" + PID + "\t";
        this.listeners = List.copyOf(listeners);
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, daemonThreads("dlock-timer"));
        timers.setRemoveOnCancelPolicy(true);
        this.scheduler = timers;
        this.listenerExecutor = Executors.newSingleThreadExecutor(daemonThreads("dlock-listener"));
        this.wakeUps = new WakeUps(node);
        this.watchdog = new Watchdog(this, watchdogLeaseMs);
    }

    RedisNode node() {
        return node;
    }

    WakeUps wakeUps() {
        return wakeUps;
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

    /** How long a waiter sleeps when the holder's key has no TTL (should not happen): one watchdog lease. */
    long idleRetryNanos() {
        return TimeUnit.MILLISECONDS.toNanos(watchdogLeaseMs);
    }

    LockTarget target(String name) {
        return LockTarget.of(keyPrefix, name);
    }

    String threadOwner() {
        return clientId + ":" + Thread.currentThread().getId();
    }

    String handleOwner() {
        return clientId + ":h" + handleSequence.incrementAndGet();
    }

    String holderDescription() {
        return holderPrefix + clean(Thread.currentThread().getName());
    }

    ConcurrentHashMap<String, Hold> threadHolds() {
        return threadHolds;
    }

    Acquisition acquire(LockTarget target, String owner, long leaseMs, boolean reentry, long waitNanos) {
        if (closed) {
            throw new IllegalStateException("the LockClient is closed");
        }
        return new Acquisition(this, target, owner, holderDescription(), leaseMs, reentry, waitNanos).start();
    }

    Hold register(LockTarget target, String owner, Grant grant, long leaseMs, boolean renewed) {
        Hold hold = new Hold(target, owner, grant.token(), leaseMs, renewed, grant.attemptStartNanos());
        holds.add(hold);
        if (renewed) {
            watchdog.add(hold);
        }
        return hold;
    }

    /** Stops renewals and forgets the hold; called before the last release is sent. */
    void forget(Hold hold) {
        watchdog.remove(hold);
        holds.remove(hold);
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
        return node.eval(LuaScript.RELEASE, target.keys(), hold.owner, target.channel()).handle((reply, error) -> {
            if (error != null) {
                LockBackendException failure = Failures.commandFailed("release", target.name(), target.key(), node,
                        commandTimeoutMs, error);
                throw new LockBackendException(failure.getMessage() + "; the lease (" + hold.leaseMs
                        + " ms) frees the lock by itself", failure.getCause());
            }
            long holdsLeft = (Long) reply;
            if (holdsLeft < 0) {
                lost(hold, "it was no longer its owner's at release (lease expired or force-released); "
                        + "the lock was left untouched");
                throw hold.lossOrNull();
            }
            if (last && holdsLeft > 0) {
                // Redis counted a re-entry whose reply never reached us: drop it so the lock frees now
                abandon(target, hold.owner);
            }
            return null;
        });
    }

    /** Best effort: drops the owner's hold if it has one, e.g. after an acquire with unknown outcome. */
    CompletableFuture<Void> abandon(LockTarget target, String owner) {
        return node.eval(LuaScript.ABANDON, target.keys(), owner, target.channel()).handle((reply, error) -> {
            if (error != null) {
                LOG.warn("could not release lock '{}' after an unknown outcome; its lease frees it: {}",
                        target.name(), Failures.unwrap(error).toString());
            }
            return null;
        });
    }

    CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return node.eval(LuaScript.FORCE_RELEASE, target.keys(), target.channel()).handle((reply, error) -> {
            if (error != null) {
                throw Failures.commandFailed("force release", target.name(), target.key(), node, commandTimeoutMs, error);
            }
            return (Long) reply == 1L;
        });
    }

    CompletableFuture<LockInfo> inspect(LockTarget target) {
        CompletableFuture<Long> waiting = node.subscriberCount(target.channel());
        return node.eval(LuaScript.INSPECT, target.keys()).thenCombine(waiting, (reply, waitingClients) -> {
            List<?> fields = (List<?>) reply;
            if (fields.isEmpty()) {
                return new LockInfo(target.name(), target.key(), Optional.empty(), 0, Duration.ZERO, 0, waitingClients);
            }
            long pttl = (Long) fields.get(4);
            return new LockInfo(target.name(), target.key(), Optional.of(parseHolder(String.valueOf(fields.get(3)))),
                    ((Long) fields.get(1)).intValue(), Duration.ofMillis(Math.max(0, pttl)),
                    Long.parseLong(String.valueOf(fields.get(2))), waitingClients);
        }).exceptionally(error -> {
            throw Failures.commandFailed("inspect", target.name(), target.key(), node, commandTimeoutMs, error);
        });
    }

    /** Every held lock whose name matches the glob {@code namePattern}, sorted by name. */
    public CompletableFuture<List<LockInfo>> list(String namePattern) {
        String keyPattern = escapeGlob(keyPrefix) + "{" + namePattern + "}";
        return node.scan(keyPattern).thenCompose(keys -> {
            List<CompletableFuture<LockInfo>> infos = new ArrayList<>();
            for (String key : keys) {
                String name = key.substring(keyPrefix.length() + 1, key.length() - 1);
                infos.add(inspect(target(name)));
            }
            return CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new)).thenApply(done -> infos.stream()
                    .map(CompletableFuture::join)
                    .filter(LockInfo::isLocked)
                    .sorted(Comparator.comparing(LockInfo::name))
                    .toList());
        }).exceptionally(error -> {
            throw Failures.commandFailed("list", namePattern, keyPattern, node, commandTimeoutMs, error);
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
            releases.add(abandon(hold.target, hold.owner));
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(commandTimeoutMs + 1000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("not every lock could be released on close; their leases free them", e);
        } finally {
            scheduler.shutdownNow();
            listenerExecutor.shutdown();
            node.close();
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
