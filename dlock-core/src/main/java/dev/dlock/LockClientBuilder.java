package dev.dlock;

import dev.dlock.internal.Callbacks;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.settings.Options;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.SlowLockSettings;
import dev.dlock.internal.store.StoreFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Builds a {@link LockClient}; {@link LockClient#builder()} gives one. Where the locks live is one
 * {@link Store} value, given to {@link #store(Store)}: {@link RedisStore} (one Redis or Sentinel's master,
 * Redlock, a Cluster), {@link PostgresStore}, {@link ZooKeeperStore} or {@link Store#inMemory()}; each
 * store's own options are methods of its value (docs/deployments.md compares the stores). There is no
 * default store: {@link #build()} without one throws, since a lock library must not pick a server by itself.
 * Each setter checks its value at once (an {@link IllegalArgumentException} naming the bad value) and,
 * except {@link #listener(LockListener)} and {@link #observer(LockObserver)}, may be called once (an
 * {@link IllegalStateException} when called again); {@link #build()} checks the rules between options.
 * The builder keeps the options itself and hands them to the client once, at {@link #build()}. Not
 * thread-safe.
 *
 * <pre>{@code
 * LockClient client = LockClient.builder()
 *         .store(RedisStore.standalone("redis://redis.internal:6379"))
 *         .defaultLease(Duration.ofSeconds(30))
 *         .build();
 * }</pre>
 */
public final class LockClientBuilder {
    // each option's value, null until set
    private Store store;
    private String keyPrefix;
    private String clientName;
    private Duration defaultLease, commandTimeout, waiterTimeout, outageTolerance;
    private Duration slowHoldThreshold, slowWaitThreshold;
    private Boolean captureAcquireSite;
    private Executor callbackExecutor;
    private final List<LockListener> listeners = new ArrayList<>();
    private final List<LockObserver> observers = new ArrayList<>();

    LockClientBuilder() {
    }

    /**
     * Where the locks live: {@link RedisStore#standalone(String)}, {@link RedisStore#redlock(String...)},
     * {@link RedisStore#cluster(String...)}, {@link PostgresStore#url(String)},
     * {@link PostgresStore#dataSource(javax.sql.DataSource)}, {@link ZooKeeperStore#connect(String)} or
     * {@link Store#inMemory()}, with that store's options. Required: {@link #build()} without it throws.
     *
     * @param store the store
     * @return this builder
     * @throws IllegalArgumentException the store is null
     */
    public LockClientBuilder store(Store store) {
        if (store == null) {
            throw new IllegalArgumentException("store must not be null (RedisStore.standalone(uri), PostgresStore.url(url), "
                    + "ZooKeeperStore.connect(connectString), Store.inMemory(), ...)");
        }
        once(this.store, "store");
        this.store = store;
        return this;
    }

    /**
     * Prefix of every key and channel (default {@value LockClient#DEFAULT_KEY_PREFIX}). Clients
     * that share locks must use the same prefix.
     *
     * @param prefix the prefix; may be empty
     * @return this builder
     * @throws IllegalArgumentException the prefix is null; with a {@link RedisStore}, {@link #build()} also refuses
     *     a prefix with <code>&#123;</code> or <code>&#125;</code> (they would break the hash tag that keeps a lock's
     *     keys in one Cluster slot)
     */
    public LockClientBuilder keyPrefix(String prefix) {
        once(keyPrefix, "keyPrefix");
        keyPrefix = Options.checkKeyPrefix(prefix);
        return this;
    }

    /**
     * Lease of holds taken without an explicit lease, renewed by the watchdog every third of it
     * (default 30 s, at least {@link LockClient#MIN_WATCHDOG_LEASE}). A crashed holder blocks
     * others for at most this long. {@link #build()} requires it to be more than 3 × the command timeout.
     *
     * @param lease the default lease
     * @return this builder
     * @throws IllegalArgumentException the lease is null, shorter than {@link LockClient#MIN_WATCHDOG_LEASE}
     *     (100 ms) or longer than {@link LockClient#MAX_LEASE} (365 days)
     */
    public LockClientBuilder defaultLease(Duration lease) {
        once(defaultLease, "defaultLease");
        defaultLease = Options.checkDefaultLease(lease);
        return this;
    }

    /**
     * Longest wait for one reply of the store before its outcome is declared unknown (default 3 s); it
     * also bounds connecting, which on Redis and ZooKeeper gets 3 s at least (a connection's set-up, and a Cluster's
     * topology refresh, take several round trips). {@link #build()} requires it to be shorter than a third of the
     * default lease (else a renewal could time out after the lease ran out), and a set
     * {@link #waiterTimeout(Duration)} to be more than 1.5 × it.
     *
     * @param timeout the command timeout
     * @return this builder
     * @throws IllegalArgumentException the timeout is null, zero, negative or longer than 10 minutes
     */
    public LockClientBuilder commandTimeout(Duration timeout) {
        once(commandTimeout, "commandTimeout");
        commandTimeout = Options.checkCommandTimeout(timeout);
        return this;
    }

    /**
     * How long a queued waiter keeps its place without asking again (between
     * {@link LockClient#MIN_WAITER_TIMEOUT} and {@link LockClient#MAX_WAITER_TIMEOUT}): a fair lock's
     * waiter, a writer's waiting mark on a read-write lock, or, on one Redis, a plain lock's waiter (see
     * {@link LockClient#getLock(String)}). Live waiters ask every third of it, so this bounds how long a
     * waiter whose process died holds up the others. Must exceed 1.5 × the command timeout, so that a
     * refresh answered within the command timeout always arrives in time. Default: 5 s, or twice the
     * command timeout when that is longer.
     *
     * @param timeout the waiter timeout
     * @return this builder
     * @throws IllegalArgumentException the timeout is null, shorter than {@link LockClient#MIN_WAITER_TIMEOUT}
     *     (100 ms) or longer than {@link LockClient#MAX_WAITER_TIMEOUT} (10 minutes)
     */
    public LockClientBuilder waiterTimeout(Duration timeout) {
        once(waiterTimeout, "waiterTimeout");
        waiterTimeout = Options.checkWaiterTimeout(timeout);
        return this;
    }

    /**
     * How long {@code lock()}, {@code lockInterruptibly()} and {@code acquireAsync()} (the acquires without
     * a wait budget) keep trying while the store fails (connection lost, command timed out, server
     * restarting) before they throw {@link LockBackendException}; counted from the first failure of an
     * unbroken run, any answer starts it afresh. Zero: throw at the first failure. Default
     * {@link LockClient#DEFAULT_OUTAGE_TOLERANCE} (30 s), enough to ride through a restart or a failover. An
     * acquire with a wait budget keeps trying until its budget ends instead; {@code tryLock()} makes one
     * attempt and throws at once.
     *
     * @param tolerance how long to keep trying through an outage; zero up to one day
     * @return this builder
     * @throws IllegalArgumentException {@code tolerance} is null, negative or too long
     */
    public LockClientBuilder outageTolerance(Duration tolerance) {
        once(outageTolerance, "outageTolerance");
        outageTolerance = Options.checkOutageTolerance(tolerance);
        return this;
    }

    /**
     * Name recorded with every hold (for {@code dlock status}) and set as the Redis CLIENT
     * name. Default {@code dlock-<pid>}. No white space (Redis refuses it).
     *
     * @param name the client's name
     * @return this builder
     * @throws IllegalArgumentException the name is null, blank or contains white space
     */
    public LockClientBuilder clientName(String name) {
        once(clientName, "clientName");
        clientName = Options.checkClientName(name);
        return this;
    }

    /**
     * Told when a hold is lost, on a thread of dlock's own; may be called several times to add
     * listeners, which are told in the order they were added.
     *
     * @param listener the listener to add
     * @return this builder
     * @throws IllegalArgumentException the listener is null
     */
    public LockClientBuilder listener(LockListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listeners.add(listener);
        return this;
    }

    /**
     * Told what the client's locks do, for metrics and tracing (see {@link LockObserver}), e.g.
     * {@code DlockMetrics.of(meterRegistry)} of the {@code dlock-micrometer} module. May be called
     * several times to add observers, which are told in the order they were added. Default: none.
     * An observer that throws cannot break locking: the failure is logged and ignored.
     *
     * @param observer the observer to add
     * @return this builder
     * @throws IllegalArgumentException the observer is null
     */
    public LockClientBuilder observer(LockObserver observer) {
        if (observer == null) {
            throw new IllegalArgumentException("observer must not be null");
        }
        observers.add(observer);
        return this;
    }

    /**
     * Logs a hold that lasts longer than {@code threshold}: one WARN when it passes the threshold (lock
     * name and kind, holder, how long so far, and where it was acquired when
     * {@link #captureAcquireSite(boolean)} is on), and one more WARN when it is released or lost, with the
     * total. One check on the client's timer looks at every hold, a tenth of the shortest threshold apart
     * (10 ms to 1 s), so the first WARN comes that much late at most. Logger:
     * {@code dev.dlock.internal.SlowLockWarnings}. Default: off, since how long is too long depends on
     * what the lock protects.
     *
     * @param threshold how long a hold may last unreported, 1 ms to 365 days
     * @return this builder
     * @throws IllegalArgumentException the threshold is null, shorter than 1 ms or longer than 365 days
     */
    public LockClientBuilder slowHoldThreshold(Duration threshold) {
        once(slowHoldThreshold, "slowHoldThreshold");
        slowHoldThreshold = SlowLockSettings.threshold("slowHoldThreshold", threshold);
        return this;
    }

    /**
     * Logs an acquisition that waits longer than {@code threshold}: one WARN when it passes the threshold,
     * with the waiting thread, how long so far, the lock's current holder, lease left and waiting clients
     * as the store tells them (one inspect per lock and check), and where the acquire was called when
     * {@link #captureAcquireSite(boolean)} is on; and one more WARN when the wait ends (acquired, timed
     * out, interrupted or failed), with the total. Checked as {@link #slowHoldThreshold(Duration)} is.
     * Default: off.
     *
     * @param threshold how long an acquisition may wait unreported, 1 ms to 365 days
     * @return this builder
     * @throws IllegalArgumentException the threshold is null, shorter than 1 ms or longer than 365 days
     */
    public LockClientBuilder slowWaitThreshold(Duration threshold) {
        once(slowWaitThreshold, "slowWaitThreshold");
        slowWaitThreshold = SlowLockSettings.threshold("slowWaitThreshold", threshold);
        return this;
    }

    /**
     * Records, with every acquisition, the stack frame that called dlock (the first one outside
     * dlock), so that the slow-hold and slow-wait warnings say where a lock was acquired. It costs
     * a walk of the caller's stack per acquisition (re-entries excepted): a few microseconds.
     * Default: off.
     *
     * @param capture whether to record the call site
     * @return this builder
     */
    public LockClientBuilder captureAcquireSite(boolean capture) {
        once(captureAcquireSite, "captureAcquireSite");
        captureAcquireSite = capture;
        return this;
    }

    /**
     * Where the futures that dlock hands out complete ({@code acquireAsync(...)}, {@code tryAcquireAsync(...)},
     * {@code whenLost()}, {@code releaseAsync()}), and so where the stages an application chains on them run
     * ({@code thenAccept}, {@code whenComplete}, a {@code Mono} built on them): never on dlock's own threads
     * (a store connection's, its timer's, or the thread of a caller whose release handed the lock on), where a
     * callback that blocks or releases a handle would stall the client or wait for itself. Default: a new
     * virtual thread per completion on JDK 21 and later, a cached pool of daemon threads
     * ({@code dlock-callback}) before; shared by the clients of the JVM. A completion the executor refuses
     * (it was shut down) runs on the default. A future that is done when dlock hands it out (the copy of a
     * loss that happened already) is done at once, and stages chained on it run on the caller's thread, as
     * for any done future. With an executor of few threads, do not block on a dlock future inside one of its
     * tasks: the completion needs a thread of that executor. The client neither shuts it down nor waits for it.
     *
     * @param executor runs every completion of a future handed to the application
     * @return this builder
     * @throws IllegalArgumentException the executor is null
     */
    public LockClientBuilder callbackExecutor(Executor executor) {
        once(callbackExecutor, "callbackExecutor");
        if (executor == null) {
            throw new IllegalArgumentException("callbackExecutor must not be null");
        }
        callbackExecutor = executor;
        return this;
    }

    /**
     * Checks the rules between the options, then connects: to the one Redis, which must answer within the
     * command timeout, or to every Redlock master, a quorum of which must answer (PostgreSQL: the database
     * must answer and hold dlock's schema, or let it be created; ZooKeeper: the ensemble must grant a
     * session). A store that is down is not waited for:
     * to wait for it (a service starting with its Redis), build again until it succeeds or your budget
     * ends, as {@code dlock exec --wait} does. Once built, the client rides through outages itself.
     *
     * @return the connected client; close it when done
     * @throws IllegalArgumentException the command timeout (set or default) is not shorter than a third of the
     *     default lease (set or default), a set waiter timeout is not more than 1.5 × the command timeout,
     *     the {@link RedisStore#replicaAcks(int, Duration)} timeout is not shorter than the command timeout,
     *     or a {@link RedisStore}'s key prefix contains <code>&#123;</code> or <code>&#125;</code>
     * @throws IllegalStateException no {@link #store(Store)} was given
     * @throws LockBackendException the store cannot be reached or refuses the credentials (Redlock: fewer
     *     than a quorum of the masters reachable)
     */
    public LockClient build() {
        if (store == null) {
            throw new IllegalStateException("no store: call store(...) with RedisStore.standalone(uri), RedisStore.redlock(...), "
                    + "RedisStore.cluster(...), PostgresStore.url(url), PostgresStore.dataSource(ds), "
                    + "ZooKeeperStore.connect(connectString) or Store.inMemory()");
        }
        RedisStore redis = store instanceof RedisStore r ? r : null;
        Options options = new Options(
                redis != null && !redis.redlock() && !redis.isCluster() ? redis.uris().get(0) : null,
                redis != null && redis.redlock() ? redis.uris() : null,
                redis != null && redis.isCluster() ? redis.uris() : null,
                redis != null ? redis.nodeTimeoutOrNull() : null, keyPrefix, defaultLease,
                commandTimeout, waiterTimeout, clientName, outageTolerance,
                redis != null && redis.replicaAcksOrNone().enabled() ? redis.replicaAcksOrNone() : null,
                slowHoldThreshold, slowWaitThreshold, captureAcquireSite != null && captureAcquireSite,
                redis != null ? null : store.getClass().getSimpleName());
        Settings settings = options.settings();
        return new LockClient(LockEngine.start(settings, factory(), listeners, observers,
                callbackExecutor != null ? callbackExecutor : Callbacks.DEFAULT_EXECUTOR));
    }

    /** The store's factory; each store value makes its own (only the chosen store's classes are loaded). */
    private StoreFactory factory() {
        if (store instanceof InMemoryStore memory) {
            return memory.factory();
        }
        if (store instanceof PostgresStore postgres) {
            return postgres.factory();
        }
        if (store instanceof ZooKeeperStore zookeeper) {
            return zookeeper.factory();
        }
        return ((RedisStore) store).factory();
    }

    private static void once(Object current, String option) {
        if (current != null) {
            throw new IllegalStateException(option + " was set already");
        }
    }
}
