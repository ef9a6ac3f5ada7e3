package dev.dlock;

import dev.dlock.internal.lettuce.LettuceNodes;
import dev.dlock.internal.lettuce.RedisStores;
import dev.dlock.internal.memory.MemoryStores;
import dev.dlock.internal.postgres.PostgresStores;
import dev.dlock.internal.settings.Options;
import dev.dlock.internal.settings.ReplicaAcks;
import dev.dlock.internal.settings.Validation;
import dev.dlock.internal.store.StoreFactory;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The options of {@link LockClientBuilder} that say where the locks live: one Redis (the default),
 * Redlock, a Cluster, PostgreSQL or this JVM, one of them per client (docs/deployments.md compares
 * them), and what that store needs. Its public methods are the builder's; it keeps their values
 * and, at {@link LockClientBuilder#build()}, chooses the store.
 */
abstract sealed class StoreOptions permits LockClientBuilder {
    // each option's value, null until set
    String redisUri;
    List<String> redlockNodes;
    List<String> clusterNodes;
    Duration redlockNodeTimeout;
    ReplicaAcks replicaAcks;
    /** A store other than Redis, named so in messages ("inMemory", "postgres"). */
    String store;
    private StoreFactory stores;
    private DataSource postgresDataSource;
    private String postgresUrl;
    private PostgresStores.Options postgresOptions = PostgresStores.Options.DEFAULTS;
    private ClientResources clientResources;

    StoreOptions() {
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
     * @throws IllegalArgumentException the URL is null, has none of these schemes, has no host or a port that is
     *     not a number, names a sentinel that is not {@code host[:port]}, names no master (neither
     *     {@code sentinelMasterId} nor {@code #NAME}), or Lettuce cannot read it; the message starts with the
     *     quoted URL
     */
    public LockClientBuilder redisUri(String uri) {
        once(redisUri, "redisUri");
        LettuceNodes.checkReadable(uri);
        redisUri = Validation.redisUri(uri);
        return self();
    }

    /**
     * Makes this a Redlock client: every lock is held on a majority (N/2+1) of these independent
     * masters (not replicas of each other), so it survives the loss of a minority of them; see
     * docs/redlock.md. N must be at least 3; an odd N is best, since an even N tolerates no more
     * failed nodes than N − 1. Excludes {@link #redisUri(String)}. A quorum must be reachable
     * when {@link LockClientBuilder#build()} runs; the other nodes are connected in the background.
     *
     * @param uris the masters' URLs, each as {@link #redisUri(String)} takes it
     * @return this builder
     * @throws IllegalArgumentException null or fewer than 3 URLs, a URL that {@link #redisUri(String)} would
     *     refuse, or the same server twice (same host, ignoring case, and port, 6379 when left out; the same
     *     socket path; the same sentinels)
     */
    public LockClientBuilder redlockNodes(String... uris) {
        once(redlockNodes, "redlockNodes");
        redlockNodes = readable("redlockNodes", Options.checkRedlockNodes(uris));
        return self();
    }

    /**
     * Makes this a Redis Cluster client: every lock lives on the master of its name's hash slot
     * (all of a lock's keys share the hash tag {@code {name}}), wake-ups use sharded pub/sub
     * (Redis 7 or later), and slots that fail over or move to another master are followed.
     * Give one or more nodes of the cluster; the others are found through them. Excludes
     * {@link #redisUri(String)} and {@link #redlockNodes(String...)}. One of the nodes must
     * answer when {@link LockClientBuilder#build()} runs.
     *
     * @param uris nodes of the cluster: {@code redis://[[user]:password@]host[:port]}, or {@code rediss://...}
     * @return this builder
     * @throws IllegalArgumentException null or no URL, or a URL that {@link #redisUri(String)} would refuse or
     *     that is a Sentinel or socket URL
     */
    public LockClientBuilder clusterNodes(String... uris) {
        once(clusterNodes, "clusterNodes");
        clusterNodes = readable("clusterNodes", Options.checkClusterNodes(uris));
        return self();
    }

    /**
     * Redlock only: how long one node may take to answer before it counts as failed. Default: a
     * tenth of the lease of each acquisition (at least 50 ms, at most the command timeout), so
     * a slow node costs at most 10% of the validity. Needs {@link #redlockNodes(String...)}.
     *
     * @param timeout the per-node timeout, at least 1 ms
     * @return this builder
     * @throws IllegalArgumentException the timeout is null or shorter than 1 ms
     */
    public LockClientBuilder redlockNodeTimeout(Duration timeout) {
        once(redlockNodeTimeout, "redlockNodeTimeout");
        redlockNodeTimeout = Options.checkRedlockNodeTimeout(timeout);
        return self();
    }

    /**
     * One Redis (standalone, Sentinel) or a Cluster: a grant counts only once at least {@code replicas}
     * replicas of the master have it ({@code WAIT replicas timeout} after each grant), which closes the
     * window in which a master dies before replicating a grant and a promoted replica grants the lock
     * again. A fresh hold acknowledged by fewer replicas in time is released and the attempt fails with
     * a {@link LockBackendException} naming the missing acknowledgement, tried again within the caller's
     * budget like an outage; a renewal counts only once acknowledged; releases do not wait; the local
     * handoff between this client's threads is off. Costs a round trip per grant, and a lagging replica
     * delays this client's other commands by up to {@code timeout}. Off by default; Redlock refuses it.
     * What it guarantees and costs: docs/deployments.md ("replicaAcks: closing the window").
     *
     * @param replicas how many replicas must acknowledge, at least 1
     * @param timeout how long to wait for them, at least 1 ms; {@link LockClientBuilder#build()} requires it to be shorter than
     *     the command timeout
     * @return this builder
     * @throws IllegalArgumentException {@code replicas} is below 1, or the timeout is null or shorter than 1 ms
     */
    public LockClientBuilder replicaAcks(int replicas, Duration timeout) {
        once(replicaAcks, "replicaAcks");
        replicaAcks = ReplicaAcks.of(replicas, timeout);
        return self();
    }

    /**
     * Keeps the locks in this JVM's memory instead of Redis: for unit tests and local development,
     * never for locks between processes. Every in-memory client of the JVM with the same
     * {@link LockClientBuilder#keyPrefix(String) key prefix} shares the locks, as clients of one Redis do; every lock
     * kind, lease, watchdog renewal, fencing token, fair queue and loss notice works as on Redis.
     * Nothing survives the JVM. Excludes every Redis option.
     *
     * @return this builder
     */
    public LockClientBuilder inMemory() {
        storeIn("inMemory");
        stores = MemoryStores.inThisJvm();
        return self();
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
     * @throws IllegalStateException a store is set already
     */
    public LockClientBuilder postgres(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("postgres: the DataSource must not be null");
        }
        storeIn("postgres");
        postgresDataSource = dataSource;
        return self();
    }

    /**
     * Like {@link #postgres(DataSource)}, on connections of the client's own (at most 9) to
     * {@code jdbc:postgresql://host[:port]/database?user=...&password=...} (also
     * {@code postgresql://...} or {@code postgres://...}; any PgJDBC parameter may follow).
     *
     * @param url the database's URL
     * @return this builder
     * @throws IllegalArgumentException the URL is not a PostgreSQL URL; the message quotes it without credentials
     * @throws IllegalStateException a store is set already, or the JDBC driver is missing
     */
    public LockClientBuilder postgres(String url) {
        String jdbcUrl = PostgresStores.jdbcUrl(url);
        storeIn("postgres");
        postgresUrl = jdbcUrl;
        return self();
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
        return self();
    }

    /**
     * PostgreSQL only: whether {@link LockClientBuilder#build()} creates dlock's tables and functions when they are
     * missing (default true). With false, a missing schema fails the build naming the SQL file to
     * run ({@code dev/dlock/postgres/V1__dlock.sql}, for Flyway or Liquibase).
     *
     * @param create whether to create the schema on first use
     * @return this builder
     */
    public LockClientBuilder postgresCreateSchema(boolean create) {
        postgresOptions = new PostgresStores.Options(postgresOptions.schema(), create, postgresOptions.wakeUps(),
                postgresOptions.pollInterval(), postgresOptions.connections());
        return self();
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
        return self();
    }

    /**
     * Lettuce's event loops and timers to use instead of dlock's own, so that an application runs one
     * set for all its Redis clients. dlock does not shut them down when it closes (the application does,
     * after closing the client), and their reconnect delay applies: Lettuce's default waits up to 30 s
     * before trying a lost server again (dlock's own resources: at most 1 s). Default: dlock's own, shut
     * down when the client closes.
     *
     * @param resources the application's Lettuce resources
     * @return this builder
     * @throws IllegalArgumentException the resources are null
     */
    public LockClientBuilder clientResources(ClientResources resources) {
        if (resources == null) {
            throw new IllegalArgumentException("clientResources must not be null");
        }
        once(clientResources, "clientResources");
        clientResources = resources;
        return self();
    }

    /** The chosen store's factory. */
    StoreFactory chosenStore() {
        if (postgresDataSource == null && postgresUrl == null && postgresOptions != PostgresStores.Options.DEFAULTS) {
            throw new IllegalStateException("postgresSchema, postgresCreateSchema and postgresPolling need postgres(...)");
        }
        return postgresDataSource != null ? PostgresStores.dataSource(postgresDataSource, postgresOptions)
                : postgresUrl != null ? PostgresStores.url(postgresUrl, postgresOptions)
                : stores != null ? stores : RedisStores.connecting(clientResources);
    }

    private LockClientBuilder self() {
        return (LockClientBuilder) this;
    }

    private void storeIn(String name) {
        once(store, name);
        store = name;
    }

    /** Lettuce must read every node's URL too (dlock's own check passed): a message names the option. */
    private static List<String> readable(String option, List<String> uris) {
        for (String uri : uris) {
            try {
                LettuceNodes.checkReadable(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
            }
        }
        return uris;
    }

    static void once(Object current, String option) {
        if (current != null) {
            throw new IllegalStateException(option + " was set already");
        }
    }
}
