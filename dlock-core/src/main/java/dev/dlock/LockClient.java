package dev.dlock;

import dev.dlock.internal.LockEngine;
import dev.dlock.internal.kinds.StoreLock;
import dev.dlock.internal.kinds.StoreMultiLock;
import dev.dlock.internal.kinds.StoreReadWriteLock;
import dev.dlock.internal.kinds.StoreSemaphore;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Validation;
import java.time.Duration;
import java.util.List;

/**
 * The entry point: a connection to the store from which locks are obtained. Thread-safe; make one per
 * application and share it. Locks of the same name from any client on the same store and key
 * prefix exclude each other.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.create(RedisStore.standalone("redis://localhost:6379"))) {
 *     DistributedLock lock = client.getLock("nightly-report");
 *     if (lock.tryLock(Duration.ofSeconds(5), Duration.ofMinutes(10))) {
 *         try { ... } finally { lock.unlock(); }
 *     }
 * }
 * }</pre>
 */
public final class LockClient implements AutoCloseable {

    /**
     * Lease of holds taken without an explicit lease (30 s); the watchdog renews it every third.
     * See {@link LockClientBuilder#defaultLease(Duration)}.
     */
    public static final Duration DEFAULT_LEASE = Settings.DEFAULT_LEASE;
    /**
     * How long one call to the store (a Redis command, a PostgreSQL statement) may take before its outcome is declared unknown (3 s). See
     * {@link LockClientBuilder#commandTimeout(Duration)}.
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Settings.DEFAULT_COMMAND_TIMEOUT;
    /** Prefix of every key and channel unless {@link LockClientBuilder#keyPrefix(String)} says otherwise. */
    public static final String DEFAULT_KEY_PREFIX = Settings.DEFAULT_KEY_PREFIX;
    /**
     * How long an acquire with a wait ({@code tryLock}, {@code tryAcquire}, {@code tryAcquireAsync}, of
     * every lock type) may take beyond its wait when the store does not answer (1 s): the attempt made
     * as the wait ends gets this long for its round trip, then the call answers whatever the store does
     * (a {@link LockBackendException} saying the outcome is unknown; a best-effort release is sent at
     * once, and a grant the store sends later is given back too). {@link DistributedLock#tryLock()}
     * counts as a wait of zero.
     */
    public static final Duration WAIT_OVERRUN = Settings.WAIT_OVERRUN;
    /**
     * The longest bounded wait (365 days): a longer one, such as {@code tryLock(Long.MAX_VALUE, NANOSECONDS)},
     * waits without bound, as {@code lock()} does.
     */
    public static final Duration MAX_WAIT = Validation.MAX_DURATION;
    /** The longest lease accepted (365 days), explicit or {@linkplain LockClientBuilder#defaultLease(Duration) default}. */
    public static final Duration MAX_LEASE = Validation.MAX_DURATION;
    /**
     * The shortest {@linkplain LockClientBuilder#defaultLease(Duration) default lease} (100 ms): renewals
     * every third of it must stay well above a round trip.
     */
    public static final Duration MIN_WATCHDOG_LEASE = Settings.MIN_WATCHDOG_LEASE;
    /**
     * How long a queued waiter keeps its place without asking again (fair lock; a writer's
     * waiting mark on a read-write lock; the plain lock on one Redis), unless the command timeout asks for more (see
     * {@link LockClientBuilder#waiterTimeout(Duration)}). Waiters ask every third of it while they wait, so
     * only a dead or frozen waiter loses its place; it then holds up the queue for at most this long.
     */
    public static final Duration DEFAULT_WAITER_TIMEOUT = Settings.DEFAULT_WAITER_TIMEOUT;
    /** The shortest {@linkplain LockClientBuilder#waiterTimeout(Duration) waiter timeout} accepted (100 ms). */
    public static final Duration MIN_WAITER_TIMEOUT = Settings.MIN_WAITER_TIMEOUT;
    /** The longest {@linkplain LockClientBuilder#waiterTimeout(Duration) waiter timeout} accepted (10 minutes). */
    public static final Duration MAX_WAITER_TIMEOUT = Settings.MAX_WAITER_TIMEOUT;
    /** The most permits a {@linkplain #getSemaphore(String, int) semaphore} may have (10,000). */
    public static final int MAX_PERMITS = Validation.MAX_PERMITS;

    /** The longest lock name, in characters. */
    public static final int MAX_NAME_LENGTH = Validation.MAX_NAME_LENGTH;

    /**
     * Checks a lock name by the rule every {@code get...} method of a client applies, without a
     * client: not null, not blank, at most {@link #MAX_NAME_LENGTH} characters. Any other
     * characters are allowed.
     *
     * @param name the name to check
     * @return the name
     * @throws IllegalArgumentException the name breaks the rule; the message says how
     */
    public static String checkName(String name) {
        return Validation.lockName(name);
    }
    /** How long an acquire without a wait budget keeps trying while the store fails ({@link LockClientBuilder#outageTolerance}). */
    public static final Duration DEFAULT_OUTAGE_TOLERANCE = Settings.DEFAULT_OUTAGE_TOLERANCE;

    private final LockEngine engine;

    LockClient(LockEngine engine) {
        this.engine = engine;
    }

    /**
     * Starts configuring a client; {@link LockClientBuilder#build()} connects it.
     *
     * @return a builder with every option at its default
     */
    public static LockClientBuilder builder() {
        return new LockClientBuilder();
    }

    /**
     * A client with every default, on the given store: {@code builder().store(store).build()}.
     *
     * @param store where the locks live, as {@link LockClientBuilder#store(Store)} takes it
     * @return the connected client; close it when done
     * @throws IllegalArgumentException the store is null, or {@link LockClientBuilder#build()} refuses it
     * @throws LockBackendException     the store cannot be reached within the default command timeout
     *                                  (3 s), or refuses the credentials
     */
    public static LockClient create(Store store) {
        return builder().store(store).build();
    }

    /**
     * The lock of this name. Cheap: no store call; lock objects of one name share their holds.
     * Also answers on a closed client; acquiring the lock then throws {@link IllegalStateException}.
     *
     * <p>Order: on one Redis (standalone, Sentinel or Cluster, without
     * {@link RedisStore#replicaAcks replicaAcks}) waiters of every client are queued in
     * Redis from their first refused attempt, and a release hands the lock to the first of them
     * and tells only that one; a client's own threads get it in between only while no waiter of
     * another client is queued. A waiter whose process died holds the others up for at most the
     * {@linkplain LockClientBuilder#waiterTimeout(Duration) waiter timeout}. Over Redlock and with
     * {@code replicaAcks}, every release wakes the waiters and they race for the lock.
     *
     * @param name the lock's name, shared by every client that means the same lock
     * @return the reentrant lock of this name
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters
     */
    public DistributedLock getLock(String name) {
        return StoreLock.reentrant(engine, name);
    }

    /**
     * The fair lock of this name: granted in the order it was asked for, across every client. Like
     * {@link #getLock(String)} otherwise (reentrant, leases, watchdog, fencing tokens, handles).
     *
     * <ul>
     * <li>A waiter is queued from its first refused attempt; the release hands the lock to the
     *     first live waiter within the release script, and wakes only that waiter.
     * <li>A waiter that stops waiting (timeout, interrupt, cancelled future) leaves the queue
     *     before the call returns. A waiter whose process died stalls the queue for at most the
     *     {@linkplain LockClientBuilder#waiterTimeout(Duration) waiter timeout} (default 5 s), never for the
     *     lease it asked for.
     * <li>{@code tryLock()} without a wait never overtakes queued waiters: it succeeds only when
     *     the lock is free and no one waits.
     * <li>Over Redlock the order is the order in which the nodes first saw the waiters (each
     *     waiter keeps the median of its nodes' times as its ticket), so it is exact for waiters
     *     that ask a few milliseconds apart and best effort for waiters that ask at once.
     * </ul>
     *
     * Cheap: no store call. Locks of one name should all be fair or all not: a plain lock of the
     * same name excludes the fair one but ignores its queue. Also answers on a closed client;
     * acquiring the lock then throws {@link IllegalStateException}.
     *
     * @param name the lock's name, shared by every client that means the same lock
     * @return the fair lock of this name
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters
     */
    public DistributedLock getFairLock(String name) {
        return StoreLock.fair(engine, name);
    }

    /**
     * The read-write lock of this name: many readers or one writer, writers first; see
     * {@link DistributedReadWriteLock} for the policy, downgrade and the refused upgrade. Cheap: no
     * Redis call. A plain or fair lock of the same name counts as a writer to it. Also answers on
     * a closed client; acquiring either side then throws {@link IllegalStateException}.
     *
     * @param name the lock's name, shared by every client that means the same lock
     * @return the read-write lock of this name
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters
     */
    public DistributedReadWriteLock getReadWriteLock(String name) {
        return new StoreReadWriteLock(engine, name);
    }

    /**
     * The semaphore of this name: at most {@code permits} holders at once across every client; see
     * {@link DistributedSemaphore}. Cheap: no store call. The count is stored with the semaphore
     * while any permit is held, and an acquire with another count then fails with
     * {@link IllegalStateException}. A lock of another kind with the same name excludes it. Also
     * answers on a closed client; acquiring a permit then throws {@link IllegalStateException}.
     *
     * @param name    the semaphore's name, shared by every client that means the same semaphore
     * @param permits how many may hold it at once: 1 to {@link #MAX_PERMITS}
     * @return the semaphore of this name
     * @throws IllegalArgumentException the name is null, blank or longer than 1024 characters, or
     *                                  {@code permits} is out of range
     */
    public DistributedSemaphore getSemaphore(String name, int permits) {
        return new StoreSemaphore(engine, name, permits);
    }

    /**
     * The locks of these names taken as one: all of them or none, with the {@link DistributedLock}
     * API and one hold count. The names are taken one after the other in sorted order, so clients
     * that take overlapping sets in any order never deadlock; an acquire that cannot take every name
     * (busy within its wait, interrupted, the store failing) gives back those it took before it returns.
     * Each name is the plain lock of {@link #getLock(String)} (its own lease, renewal and token), so
     * a multi-lock excludes the plain locks of its names and works on every topology, names in
     * different Cluster slots included. {@code fencingToken()} is the highest of the names' tokens.
     * Cheap: no store call.
     *
     * @param names the locks' names, at least one, no name twice
     * @return the multi-lock of these names; {@link DistributedLock#name()} lists them sorted
     * @throws IllegalArgumentException no name, a name given twice, or a name null, blank or longer
     *                                  than 1024 characters
     */
    public DistributedLock getMultiLock(String... names) {
        return new StoreMultiLock(engine, names);
    }

    /**
     * Every lock held now whose name matches {@code namePattern} (a glob: {@code *}, {@code ?},
     * {@code [abc]}), sorted by name. Walks the keyspace with SCAN, so it does not block Redis, but
     * it costs a round trip per matching lock: meant for operators and dashboards, not hot paths.
     * Over Redlock every node is walked, on a Redis Cluster every master that serves slots; when some
     * fail and others answer, {@link LockListIncompleteException} carries the locks of those that
     * answered and names the others.
     *
     * @param namePattern glob over lock names (not keys: without the key prefix); {@code "*"} for all
     * @return the held locks, each with its holder, hold count, lease left, fencing token and
     *         waiting clients; empty when none matches
     * @throws IllegalArgumentException {@code namePattern} is null or empty
     * @throws LockListIncompleteException on a Redis Cluster or a Redlock, some masters (nodes) failed
     *                                     and others answered
     * @throws LockBackendException     the store did not answer within the command timeout or
     *                                  answered with an error (Redlock: no node answered), or the
     *                                  calling thread was interrupted (its interrupt flag is set
     *                                  again)
     * @throws IllegalStateException    the client is closed
     */
    public List<LockInfo> listLocks(String namePattern) {
        if (namePattern == null || namePattern.isEmpty()) {
            throw new IllegalArgumentException("namePattern must not be empty, got '" + namePattern + "' (use \"*\" for all)");
        }
        try {
            return engine.list(namePattern).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException("interrupted while listing locks", e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c ? c.getCause() : e.getCause();
            if (cause instanceof LockListIncompleteException incomplete) {
                throw new LockListIncompleteException(incomplete.getMessage(), incomplete, incomplete.listed(),
                        incomplete.nodeErrors());
            }
            throw cause instanceof LockBackendException b
                    ? new LockBackendException(b.getMessage(), b, b.lockName().orElse(null), b.nodeErrors())
                    : new LockBackendException(String.valueOf(cause), cause);
        }
    }

    /**
     * Where this client's locks live, for messages and logs. No store call.
     *
     * @return the Redis (or the Redlock nodes, or {@code redis-cluster://} and the Cluster's seed
     *         nodes) this client talks to, without credentials
     */
    public String address() {
        return engine.describe();
    }

    /**
     * Stops renewals, releases every lock this client holds (best effort, bounded by the command
     * timeout; a lock that cannot be released expires with its lease) and disconnects. Holders
     * still inside a critical section see their hold as lost, a thread or handle still waiting for
     * a lock of this client gets {@link IllegalStateException} at once (a grant that races the close
     * is given back), and every later acquisition through this client's locks throws it too. Lettuce resources handed in
     * ({@link RedisStore#clientResources})
     * by the application are left running. A release that fails is logged and left to its lease.
     */
    @Override
    public void close() {
        engine.close();
    }
}
