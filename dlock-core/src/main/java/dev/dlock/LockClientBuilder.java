package dev.dlock;

import dev.dlock.internal.LockEngine;
import dev.dlock.internal.lettuce.LettuceNodes;
import dev.dlock.internal.lettuce.RedisStores;
import dev.dlock.internal.memory.MemoryStores;
import dev.dlock.internal.postgres.PostgresStores;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.SettingsBuilder;
import dev.dlock.internal.store.StoreFactory;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Builds a {@link LockClient}; {@link LockClient#builder()} gives one. Each setter checks its value at once (an
 * {@link IllegalArgumentException} naming the bad value) and, except
 * {@link #listener(LockListener)} and {@link #observer(LockObserver)}, may be called once (an {@link IllegalStateException} when
 * called again); {@link #build()} checks the rules between options. Not thread-safe.
 */
public final class LockClientBuilder {
    private final SettingsBuilder settings = new SettingsBuilder();
    /** The backend: Redis unless another store is chosen. */
    private StoreFactory stores;
    private DataSource postgresDataSource;
    private String postgresUrl;
    private PostgresStores.Options postgresOptions = PostgresStores.Options.DEFAULTS;
    private ClientResources clientResources;
    private final List<LockListener> listeners = new ArrayList<>();
    private final List<LockObserver> observers = new ArrayList<>();

    LockClientBuilder() {
    }

    /**
     * Where Redis is, as Lettuce reads it: {@code redis://[[user]:password@]host[:port][/database]},
     * {@code rediss://...} for TLS, {@code redis-socket:///path} for a Unix socket, or the
     * master that Redis Sentinels name:
     * {@code redis-sentinel://[password@]host[:port][,host[:port]...][/database]?sentinelMasterId=NAME}
     * or, as Lettuce writes it, {@code redis-sentinel://host[:port][,host[:port]...][/database]#NAME}
     * ({@code rediss-sentinel://...} for TLS). A port left out is 6379 (26379 for a sentinel). Default
     * {@value LockClient#DEFAULT_REDIS_URI}. Excludes {@link #redlockNodes(String...)} and
     * {@link #clusterNodes(String...)}.
     *
     * @param uri the Redis URL
     * @return this builder
     * @throws IllegalArgumentException the URL is null, has none of these schemes, has no host
     *                                  or a port that is not a number, names a sentinel that is
     *                                  not {@code host[:port]}, names no master (neither
     *                                  {@code sentinelMasterId} nor {@code #NAME}),
     *                                  or Lettuce cannot read it; the message starts with the
     *                                  quoted URL
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder redisUri(String uri) {
        LettuceNodes.checkReadable(uri);
        settings.redisUri(uri);
        return this;
    }

    /**
     * Keeps the locks in this JVM's memory instead of Redis: for unit tests and local development,
     * never for locks between processes. Every in-memory client of the JVM with the same
     * {@link #keyPrefix(String) key prefix} shares the locks, as clients of one Redis do; every lock
     * kind, lease, watchdog renewal, fencing token, fair queue and loss notice works as on Redis.
     * Nothing survives the JVM. Excludes {@link #redisUri(String)}, {@link #redlockNodes(String...)},
     * {@link #clusterNodes(String...)} and {@link #replicaAcks(int, Duration)}.
     *
     * @return this builder
     * @throws IllegalStateException set already
     */
    public LockClientBuilder inMemory() {
        settings.store("inMemory");
        stores = MemoryStores.inThisJvm();
        return this;
    }

    /**
     * Keeps the locks in PostgreSQL, on connections from the application's pool (for example
     * HikariCP): every lock kind, lease, watchdog renewal, fencing token, fair queue, handoff and
     * loss notice works as on Redis, with leases judged on the database's clock. dlock's tables and
     * functions are created on first use unless {@link #postgresCreateSchema(boolean)} says not
     * to; the client keeps one connection of the pool for LISTEN. Needs the PostgreSQL JDBC driver
     * ({@code org.postgresql:postgresql}). Excludes every Redis option; see docs/deployments.md.
     *
     * @param dataSource the application's DataSource of a PostgreSQL database
     * @return this builder
     * @throws IllegalArgumentException the DataSource is null
     * @throws IllegalStateException    a store is set already
     */
    public LockClientBuilder postgres(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("postgres: the DataSource must not be null");
        }
        settings.store("postgres");
        postgresDataSource = dataSource;
        return this;
    }

    /**
     * Like {@link #postgres(DataSource)}, on connections of the client's own (at most 9) to
     * {@code jdbc:postgresql://host[:port]/database?user=...&password=...} (also
     * {@code postgresql://...} or {@code postgres://...}; any PgJDBC parameter may follow).
     *
     * @param url the database's URL
     * @return this builder
     * @throws IllegalArgumentException the URL is not a PostgreSQL URL; the message quotes it
     *                                  without credentials
     * @throws IllegalStateException    a store is set already, or the JDBC driver is missing
     */
    public LockClientBuilder postgres(String url) {
        String jdbcUrl = PostgresStores.jdbcUrl(url);
        settings.store("postgres");
        postgresUrl = jdbcUrl;
        return this;
    }

    /**
     * PostgreSQL only: the schema of dlock's tables and functions. Default {@code public}.
     *
     * @param schema the schema's name, as it is (not folded to lower case)
     * @return this builder
     * @throws IllegalArgumentException the name is null or blank
     */
    public LockClientBuilder postgresSchema(String schema) {
        postgresOptions = new PostgresStores.Options(schema, postgresOptions.createSchema(), postgresOptions.wakeUps(),
                postgresOptions.pollInterval(), postgresOptions.connections());
        return this;
    }

    /**
     * PostgreSQL only: whether {@link #build()} creates dlock's tables and functions when they are
     * missing (default true). With false, a missing schema fails the build naming the SQL file to
     * run ({@code dev/dlock/postgres/V1__dlock.sql}, for Flyway or Liquibase).
     *
     * @param create whether to create the schema on first use
     * @return this builder
     */
    public LockClientBuilder postgresCreateSchema(boolean create) {
        postgresOptions = new PostgresStores.Options(postgresOptions.schema(), create, postgresOptions.wakeUps(),
                postgresOptions.pollInterval(), postgresOptions.connections());
        return this;
    }

    /**
     * PostgreSQL only: waiters poll at this interval instead of listening for NOTIFY, as behind
     * PgBouncer in transaction pooling (where LISTEN does not work; the client also finds that out
     * by itself at start, and then polls every 100 ms). A handoff then reaches its waiter within
     * one interval, and a forced release is noticed at the next renewal.
     *
     * @param interval how often a waiter asks again, at least 1 ms
     * @return this builder
     * @throws IllegalArgumentException the interval is null or shorter than 1 ms
     */
    public LockClientBuilder postgresPolling(Duration interval) {
        postgresOptions = new PostgresStores.Options(postgresOptions.schema(), postgresOptions.createSchema(),
                PostgresStores.WakeUps.POLL, interval, postgresOptions.connections());
        return this;
    }

    /**
     * Makes this a Redlock client: every lock is held on a majority (N/2+1) of these independent
     * masters (not replicas of each other), so it survives the loss of a minority of them; see
     * docs/redlock.md. N must be at least 3; an odd N is best, since an even N tolerates no more
     * failed nodes than N − 1. Excludes {@link #redisUri(String)}. A quorum must be reachable
     * when {@link #build()} runs; the other nodes are connected in the background.
     *
     * @param uris the masters' URLs, each as {@link #redisUri(String)} takes it
     * @return this builder
     * @throws IllegalArgumentException null or fewer than 3 URLs, a URL that
     *                                  {@link #redisUri(String)} would refuse, or the same
     *                                  server twice (same host, ignoring case, and port, 6379
     *                                  when left out; the same socket path; the same sentinels)
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder redlockNodes(String... uris) {
        settings.redlockNodes(uris);
        for (String uri : uris) {
            try {
                LettuceNodes.checkReadable(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("redlockNodes: " + e.getMessage(), e);
            }
        }
        return this;
    }

    /**
     * Makes this a Redis Cluster client: every lock lives on the master of its name's hash slot
     * (all of a lock's keys share the hash tag {@code {name}}), wake-ups use sharded pub/sub
     * (Redis 7 or later), and slots that fail over or move to another master are followed.
     * Give one or more nodes of the cluster; the others are found through them. Excludes
     * {@link #redisUri(String)} and {@link #redlockNodes(String...)}. One of the nodes must
     * answer when {@link #build()} runs.
     *
     * @param uris nodes of the cluster: {@code redis://[[user]:password@]host[:port]}, or
     *             {@code rediss://...} for TLS
     * @return this builder
     * @throws IllegalArgumentException null or no URL, or a URL that {@link #redisUri(String)}
     *                                  would refuse or that is a Sentinel or socket URL
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder clusterNodes(String... uris) {
        settings.clusterNodes(uris);
        for (String uri : uris) {
            try {
                LettuceNodes.checkReadable(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("clusterNodes: " + e.getMessage(), e);
            }
        }
        return this;
    }

    /**
     * Redlock only: how long one node may take to answer before it counts as failed. Default: a
     * tenth of the lease of each acquisition (at least 50 ms, at most the command timeout), so
     * a slow node costs at most 10% of the validity. Needs {@link #redlockNodes(String...)}.
     *
     * @param timeout the per-node timeout, at least 1 ms
     * @return this builder
     * @throws IllegalArgumentException the timeout is null or shorter than 1 ms
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder redlockNodeTimeout(Duration timeout) {
        settings.redlockNodeTimeout(timeout);
        return this;
    }

    /**
     * Makes a grant count only once at least {@code replicas} replicas of the Redis master have
     * it: after each granting script (fresh hold, re-entry, a fair lock's claim) the client
     * sends {@code WAIT replicas timeout} on the same connection. This closes the window in
     * which the master dies after granting a lock but before replicating it, and a promoted
     * replica grants it again. Off by default: replication is asynchronous.
     *
     * <ul>
     * <li>A fresh hold acknowledged by fewer replicas within {@code timeout} is released at
     * once and the attempt fails with a {@link LockBackendException} naming the missing
     * acknowledgement ("acquired on redis://... but only 0 of 1 replicas acknowledged within
     * 50 ms; released"). Like a Redis outage, it is tried again within the caller's budget:
     * {@code tryLock()} fails at once, an acquire with a wait tries until its wait ends and
     * then fails with this as the last failure, {@code lock()} tries for the
     * {@linkplain #outageTolerance(Duration) outage tolerance}. A re-entry that is not
     * acknowledged fails the same way but the outer hold stays held (as after a re-entry
     * whose reply was lost).</li>
     * <li>A watchdog renewal counts only once acknowledged (one WAIT per renewal batch); an
     * unacknowledged renewal does not move the hold's validity forward, so a hold whose
     * renewals stay unacknowledged is lost when its validity ends.</li>
     * <li>Releases do not wait: a release that has not reached a replica leaves a copy that
     * expires with its lease.</li>
     * <li>The local handoff between threads of this client is off (each release goes through
     * Redis and waiters acquire as usual), so that every grant is acknowledged.</li>
     * </ul>
     *
     * <p>Cost: one more round trip per grant, plus the replicas' acknowledgement (see
     * docs/benchmarks.md). WAIT holds back the commands behind it on the client's connection
     * until it answers, so a lagging replica delays this client's other commands by up to
     * {@code timeout}. With as many acknowledgements as the master has replicas, no replica
     * that lacks a grant can be promoted; with fewer, Sentinel may still promote one that did
     * not acknowledge (docs/design.md).
     *
     * <p>For one Redis (standalone or Sentinel) and for a Cluster, where each WAIT goes to the
     * master of the lock's slot (tested on standalone and Sentinel). A Redlock client's masters
     * are independent, without replicas, and its quorum is what keeps a lock across the loss of a
     * node, so {@link #build()} refuses the two together.
     *
     * @param replicas how many replicas must acknowledge, at least 1
     * @param timeout  how long to wait for them, at least 1 ms; {@link #build()} requires it
     *                 to be shorter than the command timeout
     * @return this builder
     * @throws IllegalArgumentException {@code replicas} is below 1, or the timeout is null or
     *                                  shorter than 1 ms
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder replicaAcks(int replicas, Duration timeout) {
        settings.replicaAcks(replicas, timeout);
        return this;
    }

    /**
     * Prefix of every key and channel (default {@value LockClient#DEFAULT_KEY_PREFIX}). Clients
     * that share locks must use the same prefix.
     *
     * @param prefix the prefix; may be empty
     * @return this builder
     * @throws IllegalArgumentException the prefix is null or contains <code>&#123;</code> or <code>&#125;</code>
     *                                  (they would break the hash tag that keeps a lock's keys
     *                                  in one Cluster slot)
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder keyPrefix(String prefix) {
        settings.keyPrefix(prefix);
        return this;
    }

    /**
     * Lease of holds taken without an explicit lease, renewed by the watchdog every third of it
     * (default 30 s, at least {@link LockClient#MIN_WATCHDOG_LEASE}). A crashed holder blocks
     * others for at most this long. {@link #build()} requires it to be more than 3 × the
     * command timeout.
     *
     * @param lease the default lease
     * @return this builder
     * @throws IllegalArgumentException the lease is null, shorter than
     *                                  {@link LockClient#MIN_WATCHDOG_LEASE} (100 ms) or longer
     *                                  than {@link LockClient#MAX_LEASE} (365 days)
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder defaultLease(Duration lease) {
        settings.defaultLease(lease);
        return this;
    }

    /**
     * Longest wait for one Redis reply before its outcome is declared unknown (default 3 s); it
     * also bounds connecting. {@link #build()} requires it to be shorter than a third of the
     * default lease (else a renewal could time out after the lease ran out), and a set
     * {@link #waiterTimeout(Duration)} to be more than 1.5 × it.
     *
     * @param timeout the command timeout
     * @return this builder
     * @throws IllegalArgumentException the timeout is null, zero, negative or longer than 10 minutes
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder commandTimeout(Duration timeout) {
        settings.commandTimeout(timeout);
        return this;
    }

    /**
     * How long a queued waiter keeps its place without asking again (between
     * {@link LockClient#MIN_WAITER_TIMEOUT} and {@link LockClient#MAX_WAITER_TIMEOUT}): a
     * fair lock's waiter, a writer's waiting mark on a read-write lock, or, on one Redis, a plain
     * lock's waiter (see {@link LockClient#getLock(String)}). Live waiters ask
     * every third of it, so this bounds how long a waiter whose process died holds up the
     * others. Must exceed 1.5 × the command timeout, so that a waiter's refresh that Redis
     * answers within the command timeout always arrives in time. Default: 5 s, or twice the
     * command timeout when that is longer.
     *
     * @param timeout the waiter timeout
     * @return this builder
     * @throws IllegalArgumentException the timeout is null, shorter than
     *                                  {@link LockClient#MIN_WAITER_TIMEOUT} (100 ms) or longer
     *                                  than {@link LockClient#MAX_WAITER_TIMEOUT} (10 minutes)
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder waiterTimeout(Duration timeout) {
        settings.waiterTimeout(timeout);
        return this;
    }

    /**
     * How long {@code lock()}, {@code lockInterruptibly()} and {@code acquireAsync()} (the
     * acquires without a wait budget) keep trying while Redis fails — connection lost, command
     * timed out, server restarting — before they throw {@link LockBackendException}. The time
     * counts from the first failure of an unbroken run of failures; any answer from Redis starts
     * it afresh. Zero: throw at the first failure. Default {@link LockClient#DEFAULT_OUTAGE_TOLERANCE}
     * (30 s), enough to ride through a restart or a failover. An acquire with a wait budget
     * ({@code tryLock(time, unit)} and the like) keeps trying until its budget ends instead;
     * {@code tryLock()} makes one attempt and throws at once.
     *
     * @param tolerance how long to keep trying through an outage; zero up to one day
     * @return this builder
     * @throws IllegalArgumentException {@code tolerance} is null, negative or too long
     * @throws IllegalStateException    it was set already
     */
    public LockClientBuilder outageTolerance(Duration tolerance) {
        settings.outageTolerance(tolerance);
        return this;
    }

    /**
     * Name recorded with every hold (for {@code dlock status}) and set as the Redis CLIENT
     * name. Default {@code dlock-<pid>}. No white space (Redis refuses it).
     *
     * @param name the client's name
     * @return this builder
     * @throws IllegalArgumentException the name is null, blank or contains white space
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder clientName(String name) {
        settings.clientName(name);
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
     * Logs a hold that lasts longer than {@code threshold}: one WARN when it passes the threshold
     * (lock name and kind, holder, how long so far, and where it was acquired when
     * {@link #captureAcquireSite(boolean)} is on), and one more WARN when it is released or lost,
     * with the total. One check on the client's timer looks at every hold, a tenth of the shortest
     * threshold apart (10 ms to 1 s), so the first WARN comes that much late at most. Logger:
     * {@code dev.dlock.internal.SlowLockWarnings}. Default: off, since how long is too long
     * depends on what the lock protects.
     *
     * @param threshold how long a hold may last unreported, 1 ms to 365 days
     * @return this builder
     * @throws IllegalArgumentException the threshold is null, shorter than 1 ms or longer than 365 days
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder slowHoldThreshold(Duration threshold) {
        settings.slowHoldThreshold(threshold);
        return this;
    }

    /**
     * Logs an acquisition that waits longer than {@code threshold}: one WARN when it passes the
     * threshold, with the waiting thread, how long so far, the lock's current holder, lease left
     * and waiting clients as Redis tells them (one inspect per lock and check), and where the
     * acquire was called when {@link #captureAcquireSite(boolean)} is on; and one more WARN when
     * the wait ends (acquired, timed out, interrupted or failed), with the total. Checked as
     * {@link #slowHoldThreshold(Duration)} is. Default: off.
     *
     * @param threshold how long an acquisition may wait unreported, 1 ms to 365 days
     * @return this builder
     * @throws IllegalArgumentException the threshold is null, shorter than 1 ms or longer than 365 days
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder slowWaitThreshold(Duration threshold) {
        settings.slowWaitThreshold(threshold);
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
     * @throws IllegalStateException set already
     */
    public LockClientBuilder captureAcquireSite(boolean capture) {
        settings.captureAcquireSite(capture);
        return this;
    }

    /**
     * Lettuce's event loops and timers to use instead of dlock's own, so that an application
     * runs one set for all its Redis clients. dlock does not shut them down when it closes
     * (the application does, after closing the client), and their reconnect delay applies:
     * Lettuce's default waits up to 30 s before trying a lost server again, so a client
     * notices a returning server later than with dlock's own resources (at most 1 s). Default:
     * dlock's own, shut down when the client closes.
     *
     * @param resources the application's Lettuce resources
     * @return this builder
     * @throws IllegalArgumentException the resources are null
     * @throws IllegalStateException    set already
     */
    public LockClientBuilder clientResources(ClientResources resources) {
        if (resources == null) {
            throw new IllegalArgumentException("clientResources must not be null");
        }
        if (clientResources != null) {
            throw new IllegalStateException("clientResources was set already");
        }
        this.clientResources = resources;
        return this;
    }

    /**
     * Checks the rules between the options, then connects: to the one Redis, which must answer
     * within the command timeout, or to every Redlock master, a quorum of which must answer.
     * A Redis that is down is not waited for: to wait for it (a service starting with its
     * Redis), build again until it succeeds or your budget ends, as {@code dlock exec --wait}
     * does. Once built, the client rides through outages itself.
     *
     * @return the connected client; close it when done
     * @throws IllegalArgumentException the command timeout (set or default) is not shorter than
     *                                  a third of the default lease (set or default), a set
     *                                  waiter timeout is not more than 1.5 × the command
     *                                  timeout, or the {@link #replicaAcks(int, Duration)}
     *                                  timeout is not shorter than the command timeout
     * @throws IllegalStateException    more than one of {@link #redisUri(String)},
     *                                  {@link #redlockNodes(String...)} and
     *                                  {@link #clusterNodes(String...)} are set,
     *                                  {@link #redlockNodeTimeout(Duration)} is set without
     *                                  {@code redlockNodes}, or {@link #replicaAcks(int, Duration)}
     *                                  is set with {@code redlockNodes}
     * @throws LockBackendException     Redis cannot be reached or refuses the credentials
     *                                  (Redlock: fewer than a quorum of the masters reachable)
     */
    public LockClient build() {
        Settings built = settings.build();
        if (postgresDataSource == null && postgresUrl == null && postgresOptions != PostgresStores.Options.DEFAULTS) {
            throw new IllegalStateException("postgresSchema, postgresCreateSchema and postgresPolling need postgres(...)");
        }
        StoreFactory chosen = postgresDataSource != null ? PostgresStores.dataSource(postgresDataSource, postgresOptions)
                : postgresUrl != null ? PostgresStores.url(postgresUrl, postgresOptions)
                : stores != null ? stores : RedisStores.connecting(clientResources);
        return new LockClient(LockEngine.start(built, chosen, listeners, observers));
    }
}
