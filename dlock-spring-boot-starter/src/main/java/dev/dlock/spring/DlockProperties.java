package dev.dlock.spring;

import dev.dlock.LockClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code dlock.*} properties: the options of {@link LockClientBuilder}, one property each.
 * Every option left unset keeps the builder's default. Options of one store are nested under its
 * name, as Spring Boot nests its own ({@code dlock.redis.*}, {@code dlock.postgres.*}); the others
 * are at the top. When none of {@code dlock.redis.url}, {@code dlock.redis.cluster.nodes} and
 * {@code dlock.redis.redlock.nodes} is set, the client connects to the Redis the application's
 * {@code spring.data.redis.*} properties describe.
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
     * Where the locks live: redis (the default; see dlock.redis.*), postgres, which keeps them in the
     * database of the application's DataSource (spring.datasource.*; see dlock.postgres.*), zookeeper,
     * which keeps them in the ensemble of dlock.zookeeper.connect-string, or in-memory (this JVM only).
     */
    private Store store = Store.REDIS;

    /**
     * Where the locks live (dlock.store); bound without regard to case, as Spring binds enums. Constants may be
     * added in later versions (other stores).
     */
    public enum Store {
        /** Redis (dlock.redis.*, else spring.data.redis.*). */
        REDIS,
        /** The database of the application's DataSource (dlock.postgres.*). */
        POSTGRES,
        /** The ZooKeeper ensemble of dlock.zookeeper.connect-string. */
        ZOOKEEPER,
        /** This JVM only: locks that exclude nothing outside it, for tests and single-instance tools. */
        IN_MEMORY
    }

    /**
     * The Redis store (dlock.store=redis): where Redis is and what it must do for a grant.
     */
    private final Redis redis = new Redis();

    /**
     * The PostgreSQL store (dlock.store=postgres).
     */
    private final Postgres postgres = new Postgres();

    /**
     * The ZooKeeper store (dlock.store=zookeeper).
     */
    private final ZooKeeper zookeeper = new ZooKeeper();

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
     * Logs a WARN when a hold lasts longer than this (and again when it ends). Default: off.
     */
    private Duration slowHoldThreshold;

    /**
     * Logs a WARN when an acquisition waits longer than this (and again when the wait ends). Default: off.
     */
    private Duration slowWaitThreshold;

    /**
     * Records where each lock was acquired, for the slow-hold and slow-wait warnings (a stack walk per
     * acquisition). Default: false.
     */
    private Boolean captureAcquireSite;

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
     * What the startup does on finding a @WithLock method called on "this" from within its own class
     * (read from the bytecode), a call that bypasses Spring's proxy and so runs without the lock:
     * "warn" (the default) logs a WARN per call naming caller and callee, "fail" refuses to start,
     * "ignore" does not look.
     */
    private SelfInvocation selfInvocation = SelfInvocation.WARN;

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
     * @return the store property
     */
    public Store getStore() {
        return store;
    }

    public void setStore(Store store) {
        this.store = store;
    }

    public Redis getRedis() {
        return redis;
    }

    public Postgres getPostgres() {
        return postgres;
    }

    public ZooKeeper getZookeeper() {
        return zookeeper;
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
     * @return the slow-hold-threshold property
     */
    public Duration getSlowHoldThreshold() {
        return slowHoldThreshold;
    }

    /**
     * @param slowHoldThreshold the slow-hold-threshold property
     */
    public void setSlowHoldThreshold(Duration slowHoldThreshold) {
        this.slowHoldThreshold = slowHoldThreshold;
    }

    /**
     * @return the slow-wait-threshold property
     */
    public Duration getSlowWaitThreshold() {
        return slowWaitThreshold;
    }

    /**
     * @param slowWaitThreshold the slow-wait-threshold property
     */
    public void setSlowWaitThreshold(Duration slowWaitThreshold) {
        this.slowWaitThreshold = slowWaitThreshold;
    }

    /**
     * @return the capture-acquire-site property
     */
    public Boolean getCaptureAcquireSite() {
        return captureAcquireSite;
    }

    /**
     * @param captureAcquireSite the capture-acquire-site property
     */
    public void setCaptureAcquireSite(Boolean captureAcquireSite) {
        this.captureAcquireSite = captureAcquireSite;
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
     * @return the self-invocation property
     */
    public SelfInvocation getSelfInvocation() {
        return selfInvocation;
    }

    /**
     * @param selfInvocation the self-invocation property
     */
    public void setSelfInvocation(SelfInvocation selfInvocation) {
        this.selfInvocation = selfInvocation;
    }

    /** What the startup does about a {@code @WithLock} method called on {@code this}. Constants may be added in later versions. */
    public enum SelfInvocation {
        /** A WARN per call, naming caller and callee. */
        WARN,
        /** Refuse to start, naming the calls. */
        FAIL,
        /** Do not read the bytecode. */
        IGNORE
    }

    /** The {@code dlock.redis.replica-acks.*} properties: {@link dev.dlock.RedisStore#replicaAcks(int, Duration)}. */
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

    /** The Redis store's settings, shaped as Spring Boot's {@code spring.data.redis.*}. */
    public static class Redis {

        /**
         * The Redis URL, e.g. redis://[user:password@]host:6379/0, rediss://... for TLS, or
         * redis-sentinel://host:26379,host:26380?sentinelMasterId=NAME (or Lettuce's ...#NAME). Default: the
         * Redis of spring.data.redis.*, else redis://localhost:6379.
         */
        private String url;

        /**
         * Redis Cluster.
         */
        private final Cluster cluster = new Cluster();

        /**
         * Redlock: independent Redis masters, a lock held on a majority of them.
         */
        private final Redlock redlock = new Redlock();

        /**
         * Grants count only once this many replicas acknowledged them (WAIT); off by default.
         */
        private final ReplicaAcks replicaAcks = new ReplicaAcks();

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public Cluster getCluster() {
            return cluster;
        }

        public Redlock getRedlock() {
            return redlock;
        }

        public ReplicaAcks getReplicaAcks() {
            return replicaAcks;
        }

        /** The {@code dlock.redis.cluster.*} properties. */
        public static class Cluster {

            /**
             * Redis Cluster: URLs of one or more nodes of the cluster; the others are found through them.
             */
            private List<String> nodes = new ArrayList<>();

            public List<String> getNodes() {
                return nodes;
            }

            public void setNodes(List<String> nodes) {
                this.nodes = nodes;
            }
        }

        /** The {@code dlock.redis.redlock.*} properties. */
        public static class Redlock {

            /**
             * Redlock: the URLs of at least 3 independent Redis masters; a lock is held on a majority.
             */
            private List<String> nodes = new ArrayList<>();

            /**
             * How long one node may take to answer. Default: a tenth of each acquisition's lease, between
             * 50 ms and the command timeout.
             */
            private Duration nodeTimeout;

            public List<String> getNodes() {
                return nodes;
            }

            public void setNodes(List<String> nodes) {
                this.nodes = nodes;
            }

            public Duration getNodeTimeout() {
                return nodeTimeout;
            }

            public void setNodeTimeout(Duration nodeTimeout) {
                this.nodeTimeout = nodeTimeout;
            }
        }
    }

    /** The PostgreSQL store's settings. */
    public static class Postgres {

        /**
         * The schema of dlock's tables and functions. Default "public".
         */
        private String schema;

        /**
         * Whether dlock creates its tables and functions on first use. Turn off when your
         * migrations run dlock's SQL files (dev/dlock/postgres/V1__dlock.sql, then V2__dlock.sql, V3__dlock.sql, then V4__dlock.sql). Default true.
         */
        private Boolean createSchema;

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

        public Boolean getCreateSchema() {
            return createSchema;
        }

        public void setCreateSchema(Boolean createSchema) {
            this.createSchema = createSchema;
        }

        public Duration getPolling() {
            return polling;
        }

        public void setPolling(Duration polling) {
            this.polling = polling;
        }
    }

    /** The ZooKeeper store's settings. */
    public static class ZooKeeper {

        /**
         * The ensemble: host:port[,host:port...][/chroot], e.g. zk1:2181,zk2:2181,zk3:2181/app-locks.
         */
        private String connectString;

        /**
         * The session timeout to ask the ensemble for. Unset: the default lease.
         */
        private Duration sessionTimeout;

        public String getConnectString() {
            return connectString;
        }

        public void setConnectString(String connectString) {
            this.connectString = connectString;
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }
    }
}
