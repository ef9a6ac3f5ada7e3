package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.internal.memory.MemoryStores;
import dev.dlock.testing.PostgresServers;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import dev.dlock.testing.ServerKind;
import dev.dlock.testing.ZooKeeperEnsemble;
import dev.dlock.testing.ZooKeeperServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension giving a test class lock clients on one Redis, on Redlock masters, on a Redis
 * Cluster, in memory, or on several of them (for suites that check each property on every
 * backend: {@link #everyBackend(int)}). A new backend joins the suites as one more
 * {@link Topology} value, with how to build a client on it and how to see that nothing is left.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final LockServers servers = LockServers.singleRedis();
 * }</pre>
 *
 * <p>Register it in a static field: the servers start once for the class (see {@link
 * RedisServers}), the ZooKeeper ensemble once for the JVM ({@link SharedZooKeeper}). Every client
 * and every other resource handed out or {@linkplain #track tracked} during a test is closed after
 * it, last opened first, before the servers are brought back to a healthy, empty state; a close
 * that fails fails the test.
 */
final class LockServers implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** Where a client's locks live. */
    enum Topology {
        ONE_REDIS, REDLOCK, CLUSTER, IN_MEMORY, POSTGRES, ZOOKEEPER;

        /** Whether clients of this topology share locks between processes (so workers in other JVMs can join). */
        boolean acrossProcesses() {
            return this != IN_MEMORY;
        }
    }

    private final Map<Topology, RedisServers> topologies;
    /** The Cluster, while the test class runs, when {@link Topology#CLUSTER} is one of the topologies. */
    private final LockCluster cluster;
    private final boolean inMemory;
    private final Duration redlockNodeTimeout;
    /** The PostgreSQL server, when {@link Topology#POSTGRES} is one of the topologies. */
    private final PostgresServers postgres;
    /** The ZooKeeper ensemble ({@link SharedZooKeeper}), when {@link Topology#ZOOKEEPER} is one of the topologies. */
    private final ZooKeeperEnsemble zookeeper;
    private final List<AutoCloseable> open = new ArrayList<>();
    private boolean inTest;

    private LockServers(Map<Topology, RedisServers> topologies, Duration redlockNodeTimeout) {
        this(topologies, null, false, redlockNodeTimeout, null, null);
    }

    private LockServers(Map<Topology, RedisServers> topologies, LockCluster cluster, boolean inMemory,
                        Duration redlockNodeTimeout, PostgresServers postgres, ZooKeeperEnsemble zookeeper) {
        this.topologies = topologies;
        this.cluster = cluster;
        this.inMemory = inMemory;
        this.redlockNodeTimeout = redlockNodeTimeout;
        this.postgres = postgres;
        this.zookeeper = zookeeper;
    }

    /**
     * @return clients of every backend: one Redis, Redlock over {@code masters} others, a Cluster,
     *     memory, PostgreSQL and the ZooKeeper ensemble of 3 servers that the JVM's classes share
     */
    static LockServers everyBackend(int masters) {
        // the Valkey run (dlock.server=valkey) checks the servers that speak Redis's protocol; memory,
        // PostgreSQL and ZooKeeper do not depend on the server kind and are checked in the Redis run
        boolean valkey = ServerKind.current() == ServerKind.VALKEY;
        return new LockServers(new EnumMap<>(Map.of(
                Topology.ONE_REDIS, RedisServers.standalone(),
                Topology.REDLOCK, RedisServers.masters(masters))), new LockCluster(), !valkey, null,
                valkey ? null : PostgresServers.create(), valkey ? null : SharedZooKeeper.ensemble());
    }

    /** @return this extension, handing out PostgreSQL clients too (on a server of its own) */
    LockServers withPostgres() {
        return new LockServers(topologies, cluster, inMemory, redlockNodeTimeout, PostgresServers.create(), zookeeper);
    }

    /** @return this extension, handing out ZooKeeper clients too (on the ensemble of 3 servers that the JVM's classes share) */
    LockServers withZooKeeper() {
        return new LockServers(topologies, cluster, inMemory, redlockNodeTimeout, postgres, SharedZooKeeper.ensemble());
    }

    /** @return the ZooKeeper ensemble */
    ZooKeeperEnsemble zookeeper() {
        return requireZooKeeper();
    }

    /** @return this extension, handing out in-memory clients too */
    LockServers withInMemory() {
        return new LockServers(topologies, cluster, true, redlockNodeTimeout, postgres, zookeeper);
    }

    /** @return the topologies this extension hands out clients of, in declaration order */
    List<Topology> topologies() {
        return java.util.Arrays.stream(Topology.values()).filter(this::has).toList();
    }

    /** @return whether this extension hands out clients of {@code topology} */
    boolean has(Topology topology) {
        return switch (topology) {
            case CLUSTER -> cluster != null;
            case IN_MEMORY -> inMemory;
            case POSTGRES -> postgres != null;
            case ZOOKEEPER -> zookeeper != null;
            default -> topologies.containsKey(topology);
        };
    }

    /** @return clients on one Redis server */
    static LockServers singleRedis() {
        return new LockServers(new EnumMap<>(Map.of(Topology.ONE_REDIS, RedisServers.standalone())), null);
    }

    /** @return clients on Redlock over {@code masters} independent servers */
    static LockServers redlock(int masters) {
        return new LockServers(new EnumMap<>(Map.of(Topology.REDLOCK, RedisServers.masters(masters))), null);
    }

    /** @return clients on one Redis server and clients on Redlock over {@code masters} other servers */
    static LockServers singleRedisAndRedlock(int masters) {
        return new LockServers(new EnumMap<>(Map.of(
                Topology.ONE_REDIS, RedisServers.standalone(),
                Topology.REDLOCK, RedisServers.masters(masters))), null);
    }

    /**
     * @return this extension, whose Redlock clients all wait {@code timeout} for each node instead of
     *     the library's default (a tenth of the lease, too tight for a short test lease on a busy machine)
     */
    LockServers withRedlockNodeTimeout(Duration timeout) {
        return new LockServers(topologies, cluster, inMemory, timeout, postgres, zookeeper);
    }

    /**
     * Settings of a client whose watchdog lease is {@code watchdogLease}, with a command timeout that
     * fits it: a quarter of the lease, at most 2 s.
     */
    static UnaryOperator<LockClientBuilder> lease(Duration watchdogLease) {
        return builder -> builder.defaultLease(watchdogLease)
                .commandTimeout(Duration.ofMillis(Math.min(2000, watchdogLease.toMillis() / 4)));
    }

    /** @return a client of the only topology with the default lease and a 2 s command timeout */
    LockClient newClient() {
        return newClient(onlyTopology());
    }

    /** @return a client of {@code topology} with the default lease and a 2 s command timeout */
    LockClient newClient(Topology topology) {
        return newClient(topology, lease(LockClient.DEFAULT_LEASE));
    }

    /** @return a client of the only topology with the given watchdog lease (see {@link #lease}) */
    LockClient newClient(Duration watchdogLease) {
        return newClient(onlyTopology(), lease(watchdogLease));
    }

    /**
     * @param settings what the test sets on a builder that knows only the servers (and the Redlock node
     *     timeout, if this extension has one): everything else is the library's default
     * @return a client of the only topology
     */
    LockClient newClient(UnaryOperator<LockClientBuilder> settings) {
        return newClient(onlyTopology(), settings);
    }

    /** @return a client of {@code topology}: see {@link #newClient(UnaryOperator)} */
    LockClient newClient(Topology topology, UnaryOperator<LockClientBuilder> settings) {
        return newClient(topology, redlockNodeTimeout, settings);
    }

    /**
     * @param nodeTimeout the Redlock per-node timeout ({@link RedisStore#nodeTimeout(Duration)}) of this client
     * @return a Redlock client: see {@link #newClient(UnaryOperator)}
     */
    LockClient newRedlockClient(Duration nodeTimeout, UnaryOperator<LockClientBuilder> settings) {
        return newClient(Topology.REDLOCK, nodeTimeout, settings);
    }

    private LockClient newClient(Topology topology, Duration nodeTimeout, UnaryOperator<LockClientBuilder> settings) {
        requireTest();
        LockClientBuilder builder = switch (topology) {
            case ONE_REDIS -> LockClient.builder().store(RedisStore.standalone(server().uri()));
            case REDLOCK -> {
                RedisStore redlock = RedisStore.redlock(uris(Topology.REDLOCK).toArray(String[]::new));
                yield LockClient.builder().store(nodeTimeout != null ? redlock.nodeTimeout(nodeTimeout) : redlock);
            }
            case CLUSTER -> requireCluster().clientBuilder();
            case IN_MEMORY -> {
                if (!inMemory) {
                    throw new IllegalStateException("this LockServers has no in-memory clients");
                }
                yield LockClient.builder().store(Store.inMemory());
            }
            case POSTGRES -> LockClient.builder().store(PostgresStore.url(requirePostgres().server().jdbcUrl()));
            case ZOOKEEPER -> LockClient.builder().store(ZooKeeperStore.connect(requireZooKeeper().connectString()));
        };
        return track(settings.apply(builder).build());
    }

    /** Closes {@code closeable} after the test, before anything opened earlier. */
    <T extends AutoCloseable> T track(T closeable) {
        requireTest();
        open.add(closeable);
        return closeable;
    }

    /** @return a counter kept on the one Redis server under {@code key}, for exclusion checks */
    UnsafeCounter counter(String key) {
        RedisClient redis = RedisClient.create(server().uri());
        track(redis::shutdown);
        StatefulRedisConnection<String, String> connection = track(redis.connect());
        return new UnsafeCounter(connection, key);
    }

    /** @return the one Redis server */
    RedisServer server() {
        return of(Topology.ONE_REDIS).server();
    }

    /** @return the Redlock master at {@code index}, 0-based */
    RedisServer master(int index) {
        return of(Topology.REDLOCK).get(index);
    }

    /** @return every server of {@code topology}, in index order (a Cluster's masters; none in memory) */
    List<RedisServer> servers(Topology topology) {
        return switch (topology) {
            case CLUSTER -> requireCluster().group().masters();
            case IN_MEMORY, POSTGRES, ZOOKEEPER -> List.of();
            default -> of(topology).all();
        };
    }

    /**
     * Stops every server process of {@code topology} (SIGSTOP), so that the store no longer answers
     * while connections stay open; a Cluster's replicas too, so that none starts a failover.
     *
     * @return what resumes them all (and waits until a Cluster is healthy again)
     * @throws IllegalArgumentException for memory, which has no process
     */
    Runnable pause(Topology topology) {
        return switch (topology) {
            case IN_MEMORY -> throw new IllegalArgumentException("memory has no server to pause");
            case POSTGRES -> {
                requirePostgres().server().pause();
                yield () -> requirePostgres().server().resume();
            }
            case ZOOKEEPER -> {
                ZooKeeperEnsemble ensemble = requireZooKeeper();
                ensemble.servers().forEach(ZooKeeperServer::pause);
                yield ensemble::heal;
            }
            case CLUSTER -> {
                List<RedisServer> nodes = requireCluster().group().nodes();
                nodes.forEach(RedisServer::pause);
                yield () -> {
                    nodes.forEach(RedisServer::resume);
                    requireCluster().group().awaitHealthy(Duration.ofSeconds(30));
                };
            }
            default -> {
                List<RedisServer> all = servers(topology);
                all.forEach(RedisServer::pause);
                yield () -> all.forEach(RedisServer::resume);
            }
        };
    }

    /**
     * Waits (up to 5 s) until nothing of any lock is left where {@code topology} keeps locks: no
     * lock key, queue or waiting mark on any server (each is left with its token floor alone), or
     * nothing in memory.
     */
    void assertNothingLeft(Topology topology) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            if (topology == Topology.IN_MEMORY) {
                assertThat(MemoryStores.isEmpty(LockClient.DEFAULT_KEY_PREFIX)).as("nothing left in memory").isTrue();
            }
            if (topology == Topology.POSTGRES) {
                // a waiter whose deadline passed has lapsed (its row goes with the name's next change)
                assertThat(requirePostgres().server().sql("SELECT (SELECT count(*) FROM dlock_hold WHERE lease_end > clock_timestamp()) + "
                        + "(SELECT count(*) FROM dlock_waiter WHERE deadline > clock_timestamp())"))
                        .as("no hold or live waiter left in PostgreSQL").isEqualTo("0");
            }
            if (topology == Topology.ZOOKEEPER) {
                assertThat(ZooKeeperLocks.lockNodes(requireZooKeeper().connectString())).as("no hold or waiter left in ZooKeeper")
                        .isEmpty();
            }
            for (RedisServer server : servers(topology)) {
                assertThat(server.keys(LockClient.DEFAULT_KEY_PREFIX + "{*")).as(server.uri()).isEmpty();
            }
        });
    }

    /**
     * What the store of {@code topology} holds under dlock's keys, for a failure message: the rows of
     * PostgreSQL's tables, ZooKeeper's lock nodes with their data, each Redis server's keys.
     */
    String contents(Topology topology) {
        try {
            if (topology == Topology.IN_MEMORY) {
                return MemoryStores.isEmpty(LockClient.DEFAULT_KEY_PREFIX) ? "memory: empty" : "memory: not empty";
            }
            if (topology == Topology.POSTGRES) {
                return "dlock_hold:\n" + requirePostgres().server().sql("SELECT *, clock_timestamp() FROM dlock_hold")
                        + "\ndlock_waiter:\n" + requirePostgres().server().sql("SELECT *, clock_timestamp() FROM dlock_waiter");
            }
            if (topology == Topology.ZOOKEEPER) {
                return String.join("\n", ZooKeeperLocks.lockNodesWithData(requireZooKeeper().connectString()));
            }
            StringBuilder keys = new StringBuilder();
            for (RedisServer server : servers(topology)) {
                keys.append(server.uri()).append(": ").append(server.keys(LockClient.DEFAULT_KEY_PREFIX + "{*")).append('\n');
            }
            return keys.toString();
        } catch (RuntimeException e) {
            return "(could not read the store: " + e + ")";
        }
    }

    /**
     * Stops every server of {@code topology} answering (SIGSTOP: connections stay open, commands time
     * out) until the returned resume runs; in memory there is nothing to stop.
     */
    Runnable pauseStore(Topology topology) {
        if (topology == Topology.POSTGRES) {
            requirePostgres().server().pause();
            return requirePostgres().server()::resume;
        }
        if (topology == Topology.ZOOKEEPER) {
            // every server of the ensemble, so that no quorum answers; the resume waits for the quorum again
            ZooKeeperEnsemble ensemble = requireZooKeeper();
            ensemble.servers().forEach(ZooKeeperServer::pause);
            return ensemble::heal;
        }
        List<RedisServer> paused = servers(topology);
        if (paused.isEmpty()) {
            throw new IllegalArgumentException(topology + " has no server to pause");
        }
        paused.forEach(RedisServer::pause);
        return () -> paused.forEach(RedisServer::resume);
    }

    private PostgresServers requirePostgres() {
        if (postgres == null) {
            throw new IllegalStateException("this LockServers has no PostgreSQL");
        }
        return postgres;
    }

    private ZooKeeperEnsemble requireZooKeeper() {
        if (zookeeper == null) {
            throw new IllegalStateException("this LockServers has no ZooKeeper");
        }
        return zookeeper;
    }

    private LockCluster requireCluster() {
        if (cluster == null) {
            throw new IllegalStateException("this LockServers has no Cluster");
        }
        return cluster;
    }

    /** @return the URI of every server of {@code topology}, in index order */
    List<String> uris(Topology topology) {
        return of(topology).uris();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        for (RedisServers servers : topologies.values()) {
            servers.beforeAll(context);
        }
        if (cluster != null) {
            cluster.beforeAll(context);
        }
        if (postgres != null) {
            postgres.beforeAll(context);
        }
        if (zookeeper != null) {
            SharedZooKeeper.start();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        for (RedisServers servers : topologies.values()) {
            servers.beforeEach(context);
        }
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        inTest = false;
        Exception failure = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing what the test opened failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        open.clear();
        for (RedisServers servers : topologies.values()) {
            servers.afterEach(context);
        }
        if (cluster != null) {
            cluster.group().masters().forEach(RedisServer::flushAll);
        }
        if (postgres != null) {
            postgres.afterEach(context);
            postgres.server().sql("DO $$ BEGIN IF to_regclass('dlock_hold') IS NOT NULL THEN "
                    + "TRUNCATE dlock_hold, dlock_waiter; END IF; END $$");
        }
        if (zookeeper != null) {
            zookeeper.afterEach(context);
            ZooKeeperLocks.deleteLocks(zookeeper.connectString());
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (RedisServers servers : topologies.values()) {
            servers.afterAll(context);
        }
        if (cluster != null) {
            cluster.afterAll(context);
        }
        if (postgres != null) {
            postgres.afterAll(context);
        }
        // the ZooKeeper ensemble is shared with the next classes: healed and emptied after each test
    }

    private RedisServers of(Topology topology) {
        RedisServers servers = topologies.get(topology);
        if (servers == null) {
            throw new IllegalStateException("this LockServers has no " + topology + " servers, only " + topologies.keySet());
        }
        return servers;
    }

    private Topology onlyTopology() {
        if (topologies.size() != 1 || cluster != null || inMemory || postgres != null || zookeeper != null) {
            throw new IllegalStateException("this LockServers has " + topologies.keySet() + ": name the topology");
        }
        return topologies.keySet().iterator().next();
    }

    private void requireTest() {
        if (!inTest) {
            throw new IllegalStateException("clients are handed out inside tests only: register LockServers with "
                    + "@RegisterExtension in a static field and call it from a test or @BeforeEach method");
        }
    }
}
