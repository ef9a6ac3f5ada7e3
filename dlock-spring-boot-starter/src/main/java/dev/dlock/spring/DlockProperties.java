package dev.dlock.spring;

import dev.dlock.LockClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code dlock.*} properties: the options of {@link LockClientBuilder}, one property each.
 * Every option left unset keeps the builder's default. When none of {@code redis-uri},
 * {@code redlock-nodes} and {@code cluster-nodes} is set, the client connects to the Redis the
 * application's {@code spring.data.redis.*} properties describe.
 */
@ConfigurationProperties(prefix = "dlock")
public class DlockProperties {

    /**
     * Whether to create the auto-configured LockClient bean. With false, @WithLock locks with the
     * application's own LockClient bean; without one, an annotated method fails the startup (it
     * never runs unlocked).
     */
    private boolean enabled = true;

    /**
     * Where the locks live: "redis" (the default) or "postgres", which keeps them in the database
     * of the application's DataSource (spring.datasource.*); see dlock.postgres.*.
     */
    private String store = "redis";

    /**
     * The PostgreSQL store (dlock.store=postgres).
     */
    private final Postgres postgres = new Postgres();

    /**
     * The Redis URL, e.g. redis://[user:password@]host:6379/0, rediss://... for TLS, or
     * redis-sentinel://host:26379,host:26380?sentinelMasterId=NAME (or Lettuce's ...#NAME). Default: the Redis of
     * spring.data.redis.*, else redis://localhost:6379.
     */
    private String redisUri;

    /**
     * Redlock: the URLs of at least 3 independent Redis masters; a lock is held on a majority.
     */
    private List<String> redlockNodes = new ArrayList<>();

    /**
     * Redis Cluster: URLs of one or more nodes of the cluster; the others are found through them.
     */
    private List<String> clusterNodes = new ArrayList<>();

    /**
     * Redlock only: how long one node may take to answer. Default: a tenth of each acquisition's
     * lease, between 50 ms and the command timeout.
     */
    private Duration redlockNodeTimeout;

    /**
     * Prefix of every key and channel dlock writes; the same in every client that shares locks.
     * Default "dlock:".
     */
    private String keyPrefix;

    /**
     * Lease of holds taken without an explicit lease, renewed by the watchdog every third of it.
     * Default 30s; more than 3 times the command timeout.
     */
    private Duration defaultLease;

    /**
     * Longest wait for one Redis reply (also bounds connecting at startup). Default 3s.
     */
    private Duration commandTimeout;

    /**
     * How long a queued waiter (fair lock, waiting writer) keeps its place without asking again.
     * Default 5s, or twice the command timeout when that is longer.
     */
    private Duration waiterTimeout;

    /**
     * How long acquires without a wait budget keep trying through a Redis outage. Default 30s.
     */
    private Duration outageTolerance;

    /**
     * Name recorded with every hold and set as the Redis CLIENT name; no white space. Default:
     * spring.application.name when it has no white space, else dlock-PID.
     */
    private String clientName;

    /**
     * Order of the @WithLock advice among the advisors of a bean: lower runs outside.
     * The default runs it outside @Transactional (whose default order is the lowest precedence),
     * so a lock is released only after the transaction committed or rolled back.
     */
    private int adviceOrder = WithLockAdvisor.DEFAULT_ORDER;

    /**
     * What @WithLock(onBusy = SKIP) methods (scheduled jobs) without an onOutage of their own do
     * when Redis fails while they take the lock: true to return without running (one WARN per
     * outage, with a count when Redis answers again), false to throw LockBackendException. Other
     * methods throw unless their onOutage says SKIP.
     */
    private boolean skipOnOutage = true;

    /**
     * Grants count only once this many replicas acknowledged them (WAIT); off by default.
     */
    private final ReplicaAcks replicaAcks = new ReplicaAcks();

    /**
     * @return the enabled property
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * @param enabled the enabled property
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * @return the redis-uri property
     */
    public String getStore() {
        return store;
    }

    public void setStore(String store) {
        this.store = store;
    }

    public Postgres getPostgres() {
        return postgres;
    }

    public String getRedisUri() {
        return redisUri;
    }

    /**
     * @param redisUri the redis-uri property
     */
    public void setRedisUri(String redisUri) {
        this.redisUri = redisUri;
    }

    /**
     * @return the redlock-nodes property
     */
    public List<String> getRedlockNodes() {
        return redlockNodes;
    }

    /**
     * @param redlockNodes the redlock-nodes property
     */
    public void setRedlockNodes(List<String> redlockNodes) {
        this.redlockNodes = redlockNodes;
    }

    /**
     * @return the cluster-nodes property
     */
    public List<String> getClusterNodes() {
        return clusterNodes;
    }

    /**
     * @param clusterNodes the cluster-nodes property
     */
    public void setClusterNodes(List<String> clusterNodes) {
        this.clusterNodes = clusterNodes;
    }

    /**
     * @return the redlock-node-timeout property
     */
    public Duration getRedlockNodeTimeout() {
        return redlockNodeTimeout;
    }

    /**
     * @param redlockNodeTimeout the redlock-node-timeout property
     */
    public void setRedlockNodeTimeout(Duration redlockNodeTimeout) {
        this.redlockNodeTimeout = redlockNodeTimeout;
    }

    /**
     * @return the key-prefix property
     */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /**
     * @param keyPrefix the key-prefix property
     */
    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /**
     * @return the default-lease property
     */
    public Duration getDefaultLease() {
        return defaultLease;
    }

    /**
     * @param defaultLease the default-lease property
     */
    public void setDefaultLease(Duration defaultLease) {
        this.defaultLease = defaultLease;
    }

    /**
     * @return the command-timeout property
     */
    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    /**
     * @param commandTimeout the command-timeout property
     */
    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    /**
     * @return the waiter-timeout property
     */
    public Duration getWaiterTimeout() {
        return waiterTimeout;
    }

    /**
     * @param waiterTimeout the waiter-timeout property
     */
    public void setWaiterTimeout(Duration waiterTimeout) {
        this.waiterTimeout = waiterTimeout;
    }

    /**
     * @return the outage-tolerance property
     */
    public Duration getOutageTolerance() {
        return outageTolerance;
    }

    /**
     * @param outageTolerance the outage-tolerance property
     */
    public void setOutageTolerance(Duration outageTolerance) {
        this.outageTolerance = outageTolerance;
    }

    /**
     * @return the client-name property
     */
    public String getClientName() {
        return clientName;
    }

    /**
     * @param clientName the client-name property
     */
    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    /**
     * @return the advice-order property
     */
    public int getAdviceOrder() {
        return adviceOrder;
    }

    /**
     * @param adviceOrder the advice-order property
     */
    public void setAdviceOrder(int adviceOrder) {
        this.adviceOrder = adviceOrder;
    }

    /**
     * @return the skip-on-outage property
     */
    public boolean isSkipOnOutage() {
        return skipOnOutage;
    }

    /**
     * @param skipOnOutage the skip-on-outage property
     */
    public void setSkipOnOutage(boolean skipOnOutage) {
        this.skipOnOutage = skipOnOutage;
    }

    /**
     * @return the replica-acks property
     */
    public ReplicaAcks getReplicaAcks() {
        return replicaAcks;
    }

    /** The {@code dlock.replica-acks.*} properties: {@link LockClientBuilder#replicaAcks(int, Duration)}. */
    public static class ReplicaAcks {

        /**
         * How many replicas must acknowledge a grant; unset or 0: off.
         */
        private int replicas;

        /**
         * How long to wait for the replicas' acknowledgement; below the command timeout.
         */
        private Duration timeout = Duration.ofMillis(100);

        /**
         * @return the replicas property
         */
        public int getReplicas() {
            return replicas;
        }

        /**
         * @param replicas the replicas property
         */
        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        /**
         * @return the timeout property
         */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * @param timeout the timeout property
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** The PostgreSQL store's settings. */
    public static class Postgres {

        /**
         * The schema of dlock's tables and functions. Default "public".
         */
        private String schema = "public";

        /**
         * Whether dlock creates its tables and functions on first use. Turn off when your
         * migrations run dlock's SQL file (dev/dlock/postgres/V1__dlock.sql).
         */
        private boolean createSchema = true;

        /**
         * Waiters poll at this interval instead of listening for NOTIFY, as behind PgBouncer in
         * transaction pooling (found out by itself at start otherwise). Unset: NOTIFY.
         */
        private Duration polling;

        public String getSchema() {
            return schema;
        }

        public void setSchema(String schema) {
            this.schema = schema;
        }

        public boolean isCreateSchema() {
            return createSchema;
        }

        public void setCreateSchema(boolean createSchema) {
            this.createSchema = createSchema;
        }

        public Duration getPolling() {
            return polling;
        }

        public void setPolling(Duration polling) {
            this.polling = polling;
        }
    }
}
