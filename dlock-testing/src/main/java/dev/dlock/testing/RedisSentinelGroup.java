package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Sentinel-managed replication group of real processes: one master, two replicas ({@code
 * replicaof}) and three sentinels monitoring the master with quorum 2, all on free loopback ports.
 *
 * <p>Failure detection is tuned for tests: a master is down after {@value #DOWN_AFTER_MILLIS} ms
 * without replies, so a {@link RedisServer#kill() killed} master is usually replaced within a few
 * seconds. Everything announces itself as 127.0.0.1. Each process is stopped by its own PID on
 * {@link #close()}.
 *
 * <pre>{@code
 * try (RedisSentinelGroup group = RedisSentinelGroup.start("orders")) {
 *     RedisServer old = group.master();
 *     old.kill();
 *     RedisServer promoted = group.awaitFailover(Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public final class RedisSentinelGroup implements AutoCloseable {

    static final int DOWN_AFTER_MILLIS = 1000;
    private static final int FAILOVER_TIMEOUT_MILLIS = 3000;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(300);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    private final String masterName;
    private final List<RedisServer> dataNodes;
    private final List<RedisServer> sentinels;
    private final Path configDir;
    private volatile RedisServer master;

    private RedisSentinelGroup(String masterName, List<RedisServer> dataNodes, List<RedisServer> sentinels, Path configDir) {
        this.masterName = masterName;
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
        this.configDir = configDir;
        this.master = dataNodes.get(0);
    }

    /**
     * Starts the master, both replicas and the three sentinels, and blocks until the replicas are
     * in sync and every sentinel knows both replicas and both other sentinels (so a failover can
     * reach its quorum).
     *
     * @param masterName the name the sentinels monitor the master under ({@code sentinelMasterId})
     * @return the running group; close it to stop every node
     * @throws IllegalStateException if the group is not ready within about 20 s
     */
    public static RedisSentinelGroup start(String masterName) {
        if (masterName == null || !masterName.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("master name must be letters, digits, '_' or '-', got " + masterName);
        }
        List<RedisServer> data = new ArrayList<>();
        List<RedisServer> sentinels = new ArrayList<>();
        Path configDir = null;
        try {
            RedisServer master = RedisServer.start();
            data.add(master);
            for (int i = 0; i < 2; i++) {
                data.add(RedisServer.start("--replicaof", master.host(), Integer.toString(master.port())));
            }
            configDir = Files.createTempDirectory("dlock-sentinel-");
            ProcessReaper.registerDirectory(configDir);
            for (int i = 0; i < 3; i++) {
                Path conf = configDir.resolve("sentinel-" + i + ".conf");
                Files.writeString(conf, sentinelConfig(masterName, master));
                sentinels.add(RedisServer.startWithConfig(conf, "--sentinel"));
            }
            RedisSentinelGroup group = new RedisSentinelGroup(masterName, data, sentinels, configDir);
            group.awaitReady();
            return group;
        } catch (IOException e) {
            closeAll(data, sentinels, configDir);
            throw new UncheckedIOException("could not write a sentinel config", e);
        } catch (RuntimeException | Error e) {
            closeAll(data, sentinels, configDir);
            throw e;
        }
    }

    private static String sentinelConfig(String masterName, RedisServer master) {
        return String.join("\n",
                "sentinel resolve-hostnames no",
                "sentinel announce-ip 127.0.0.1",
                "sentinel monitor " + masterName + " 127.0.0.1 " + master.port() + " 2",
                "sentinel down-after-milliseconds " + masterName + " " + DOWN_AFTER_MILLIS,
                "sentinel failover-timeout " + masterName + " " + FAILOVER_TIMEOUT_MILLIS,
                "sentinel parallel-syncs " + masterName + " 1",
                "");
    }

    /** @return the name the sentinels monitor the master under */
    public String masterName() {
        return masterName;
    }

    /**
     * @return the current master as this group last saw it: the first node until {@link
     *     #awaitFailover(Duration)} reports a promotion
     */
    public RedisServer master() {
        return master;
    }

    /** @return the data nodes other than {@link #master()} */
    public List<RedisServer> replicas() {
        RedisServer current = master;
        return dataNodes.stream().filter(node -> node != current).collect(Collectors.toUnmodifiableList());
    }

    /** @return the master and both replicas, in start order (the original master first) */
    public List<RedisServer> dataNodes() {
        return dataNodes;
    }

    /** @return the three sentinels */
    public List<RedisServer> sentinels() {
        return sentinels;
    }

    /** @return {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3?sentinelMasterId=NAME} */
    public String sentinelUri() {
        return "redis-sentinel://" + sentinels.stream()
                .map(s -> s.host() + ":" + s.port())
                .collect(Collectors.joining(","))
                + "?sentinelMasterId=" + masterName;
    }

    /**
     * @param port the port of a master or replica of this group
     * @return the node with that port among the data nodes
     */
    public RedisServer dataNode(int port) {
        return dataNodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no data node on port " + port + " in " + dataNodes));
    }

    /**
     * @return the port of the master named by the first sentinel that answers ({@code SENTINEL
     *     get-master-addr-by-name}); sentinels that are killed or paused are skipped
     * @throws IllegalStateException if no sentinel answers
     */
    @SuppressWarnings("unchecked")
    public int masterPortPerSentinels() {
        for (RedisServer sentinel : sentinels) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            try {
                List<Object> addr = (List<Object>) sentinel.command(PROBE_TIMEOUT,
                        "SENTINEL", "get-master-addr-by-name", masterName);
                if (addr != null) {
                    return Integer.parseInt((String) addr.get(1));
                }
            } catch (UncheckedIOException | RedisReplyException unreachable) {
                // try the next sentinel
            }
        }
        throw new IllegalStateException("no sentinel answered for " + masterName);
    }

    /**
     * Waits until every running sentinel names the same master other than the current {@link
     * #master()} and that node reports {@code ROLE} master, then makes it the current master.
     *
     * @param timeout how long to wait for the failover at most
     * @return the promoted node
     * @throws IllegalStateException if no failover completes within {@code timeout}
     */
    public RedisServer awaitFailover(Duration timeout) {
        RedisServer old = master;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                int port = masterPortPerSentinels();
                if (port != old.port() && everySentinelNames(port)) {
                    RedisServer candidate = dataNode(port);
                    if ("master".equals(role(candidate))) {
                        master = candidate;
                        return candidate;
                    }
                }
            } catch (IllegalStateException | UncheckedIOException | RedisReplyException notYet) {
                // keep polling until the deadline
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("no failover away from " + old + " within " + timeout.toMillis() + " ms");
            }
            pause(POLL_INTERVAL);
        }
    }

    /**
     * Whether every running sentinel names {@code port} as the master. On a loaded machine one
     * sentinel can announce a promotion that a failover of a later epoch, led by another sentinel,
     * then replaces with the other replica (the clients follow it there, and the first promoted node
     * is resynchronised from the second, losing what was written to it): a failover is over only when
     * the sentinels agree.
     */
    @SuppressWarnings("unchecked")
    private boolean everySentinelNames(int port) {
        for (RedisServer sentinel : sentinels) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            List<Object> addr = (List<Object>) sentinel.command(PROBE_TIMEOUT,
                    "SENTINEL", "get-master-addr-by-name", masterName);
            if (addr == null || Integer.parseInt((String) addr.get(1)) != port) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param node any Redis server or sentinel
     * @return the first element of {@code ROLE}: {@code master}, {@code slave} or {@code sentinel}
     */
    @SuppressWarnings("unchecked")
    public static String role(RedisServer node) {
        return (String) ((List<Object>) node.command(PROBE_TIMEOUT, "ROLE")).get(0);
    }

    @Override
    public void close() {
        closeAll(dataNodes, sentinels, configDir);
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup[" + masterName + ", master " + master + ", " + sentinelUri() + "]";
    }

    // ---------------------------------------------------------------------------------------------

    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String lastState = "";
        while (true) {
            try {
                lastState = readiness();
                if (lastState.isEmpty()) {
                    return;
                }
            } catch (UncheckedIOException | RedisReplyException e) {
                lastState = e.getMessage();
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("sentinel group " + masterName + " not ready within "
                        + READY_TIMEOUT.toSeconds() + " s: " + lastState);
            }
            pause(POLL_INTERVAL);
        }
    }

    /** @return empty when ready, else what is still missing */
    @SuppressWarnings("unchecked")
    private String readiness() {
        for (RedisServer replica : replicas()) {
            String info = (String) replica.command(PROBE_TIMEOUT, "INFO", "replication");
            if (!info.contains("master_link_status:up")) {
                return replica + " not in sync with the master";
            }
        }
        for (RedisServer sentinel : sentinels) {
            Map<String, String> state = pairs((List<Object>) sentinel.command(PROBE_TIMEOUT, "SENTINEL", "master", masterName));
            if (!"2".equals(state.get("num-slaves")) || !"2".equals(state.get("num-other-sentinels"))) {
                return sentinel + " knows " + state.get("num-slaves") + " replicas and "
                        + state.get("num-other-sentinels") + " other sentinels";
            }
        }
        return "";
    }

    private static Map<String, String> pairs(List<Object> flat) {
        Map<String, String> map = new java.util.HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return map;
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while polling", e);
        }
    }

    private static void closeAll(List<RedisServer> data, List<RedisServer> sentinels, Path configDir) {
        // Sentinels first, so they do not react to the data nodes going away.
        sentinels.forEach(RedisServer::close);
        data.forEach(RedisServer::close);
        if (configDir != null) {
            ProcessReaper.deleteRecursively(configDir);
            ProcessReaper.unregisterDirectory(configDir);
        }
    }
}
