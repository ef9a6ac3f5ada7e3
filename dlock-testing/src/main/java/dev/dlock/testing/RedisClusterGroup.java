package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of six real {@code redis-server} processes on free loopback ports: three masters
 * with one replica each, created with {@code redis-cli --cluster create ... --cluster-replicas 1}.
 *
 * <p>Each node's cluster bus gets its own free port ({@code cluster-port}), so nothing assumes that
 * port + 10000 is free. Failure detection is tuned for tests ({@code cluster-node-timeout}
 * {@value #NODE_TIMEOUT_MILLIS} ms). Each process is stopped by its own PID on {@link #close()}.
 * Requires {@code redis-server} and {@code redis-cli} 7 on the {@code PATH} (with {@link ServerKind#VALKEY}
 * chosen: {@code valkey-server} and {@code valkey-cli}).
 */
public final class RedisClusterGroup implements AutoCloseable {

    static final int NODE_TIMEOUT_MILLIS = 1000;
    /** How many hash slots a Redis Cluster has. */
    public static final int SLOTS = 16384;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    private final List<RedisServer> nodes;

    private RedisClusterGroup(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts six nodes, joins them into a cluster and blocks until every node reports {@code
     * cluster_state:ok} and knows all six nodes.
     *
     * @return the running cluster; close it to stop every node
     * @throws IllegalStateException if {@code redis-cli --cluster create} fails or the cluster is not
     *     ready within about 30 s
     */
    public static RedisClusterGroup start() {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                nodes.add(RedisServer.start(
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS),
                        "--cluster-port", Integer.toString(RedisServer.freePort()),
                        "--cluster-announce-ip", "127.0.0.1"));
            }
            List<String> create = new ArrayList<>(List.of(ServerKind.current().cliBinary(), "--cluster", "create"));
            nodes.forEach(n -> create.add(n.host() + ":" + n.port()));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            runCli(create);
            RedisClusterGroup group = new RedisClusterGroup(nodes);
            group.awaitHealthy(READY_TIMEOUT);
            // A replica that never completed its first sync counts as too stale to fail over.
            group.awaitReplicasInSync(READY_TIMEOUT);
            return group;
        } catch (RuntimeException | Error e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    /** @return all six nodes in start order; roles change after failovers */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** @return {@code redis://127.0.0.1:<port>} of every node, in start order */
    public List<String> uris() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    /** @return the nodes that currently serve slots, as a live node's {@code CLUSTER NODES} tells */
    public List<RedisServer> masters() {
        return clusterNodes().stream().filter(n -> n.master && !n.slots.isEmpty() && !n.failed)
                .map(n -> node(n.port)).collect(Collectors.toUnmodifiableList());
    }

    /**
     * @param master one of this cluster's masters
     * @return the live replicas of {@code master}
     */
    public List<RedisServer> replicasOf(RedisServer master) {
        String id = nodeId(master);
        return clusterNodes().stream().filter(n -> id.equals(n.masterId) && !n.failed)
                .map(n -> node(n.port)).collect(Collectors.toUnmodifiableList());
    }

    /**
     * @param node a node of a cluster
     * @return the cluster node id of {@code node} ({@code CLUSTER MYID})
     */
    public static String nodeId(RedisServer node) {
        return (String) node.command(PROBE_TIMEOUT, "CLUSTER", "MYID");
    }

    /**
     * @param key any key
     * @return the hash slot of {@code key}, computed by a live node ({@code CLUSTER KEYSLOT})
     */
    public int slotOf(String key) {
        return Math.toIntExact((Long) anyLiveNode().command(PROBE_TIMEOUT, "CLUSTER", "KEYSLOT", key));
    }

    /**
     * @param slot a hash slot, 0 to 16383
     * @return the master that serves {@code slot} according to a live node
     */
    public RedisServer masterOfSlot(int slot) {
        for (ClusterNodeLine n : clusterNodes()) {
            if (n.master && !n.failed && n.serves(slot)) {
                return node(n.port);
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /**
     * @param key any key
     * @return the master that serves {@code key}'s slot
     */
    public RedisServer masterOf(String key) {
        return masterOfSlot(slotOf(key));
    }

    /**
     * Kills {@code master} with SIGKILL and waits until one of its replicas reports {@code ROLE}
     * master and every live node reports {@code cluster_state:ok}.
     *
     * @param master  one of this cluster's masters
     * @param timeout how long to wait for the promotion at most
     * @return the promoted replica
     * @throws IllegalStateException if {@code master} has no replica or no promotion happens in time
     */
    public RedisServer killMasterAndAwaitPromotion(RedisServer master, Duration timeout) {
        List<RedisServer> replicas = replicasOf(master);
        if (replicas.isEmpty()) {
            throw new IllegalStateException(master + " has no replica to promote");
        }
        master.kill();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (RedisServer replica : replicas) {
                try {
                    if (RedisSentinelGroup.role(replica).equals("master") && allLiveNodesOk()) {
                        return replica;
                    }
                } catch (java.io.UncheckedIOException slow) {
                    // a node busy with the failover (or a loaded machine) may answer a probe late: ask again
                }
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("no replica of killed " + master + " promoted within " + timeout.toMillis() + " ms");
            }
            RedisSentinelGroup.pause(POLL_INTERVAL);
        }
    }

    /**
     * Moves one slot, with its keys, to {@code target} using the same steps as {@code redis-cli
     * --cluster reshard}: {@code SETSLOT IMPORTING/MIGRATING}, {@code MIGRATE} of every key, then
     * {@code SETSLOT NODE} on every master.
     *
     * @param slot   the hash slot to move, 0 to 16383
     * @param target the master that serves it afterwards
     * @throws IllegalArgumentException if {@code target} already serves the slot
     */
    @SuppressWarnings("unchecked")
    public void moveSlot(int slot, RedisServer target) {
        RedisServer source = masterOfSlot(slot);
        if (source == target) {
            throw new IllegalArgumentException(target + " already serves slot " + slot);
        }
        String sourceId = nodeId(source);
        String targetId = nodeId(target);
        String slotArg = Integer.toString(slot);
        target.command("CLUSTER", "SETSLOT", slotArg, "IMPORTING", sourceId);
        source.command("CLUSTER", "SETSLOT", slotArg, "MIGRATING", targetId);
        while (true) {
            List<Object> keys = (List<Object>) source.command("CLUSTER", "GETKEYSINSLOT", slotArg, "100");
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()),
                    "", "0", "5000", "KEYS"));
            keys.forEach(k -> migrate.add((String) k));
            source.command(migrate.toArray(String[]::new));
        }
        // Target first: once the source gives up the slot, clients it redirects must find the target owning it.
        target.command("CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
        source.command("CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
        for (RedisServer master : masters()) {
            if (master != source && master != target) {
                master.command("CLUSTER", "SETSLOT", slotArg, "NODE", targetId);
            }
        }
    }

    /**
     * Waits until every live node reports {@code cluster_state:ok} and knows all six nodes.
     *
     * @param timeout how long to wait at most
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!allLiveNodesOk()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("cluster not healthy within " + timeout.toMillis() + " ms: "
                        + nodes.stream().map(n -> n.port() + "=" + clusterState(n)).collect(Collectors.joining(", ")));
            }
            RedisSentinelGroup.pause(POLL_INTERVAL);
        }
    }

    private void awaitReplicasInSync(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisServer node : nodes) {
            while (true) {
                String replication = (String) node.command(PROBE_TIMEOUT, "INFO", "replication");
                if (replication.contains("role:master") || replication.contains("master_link_status:up")) {
                    break;
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("replica " + node + " not in sync within " + timeout.toMillis() + " ms");
                }
                RedisSentinelGroup.pause(POLL_INTERVAL);
            }
        }
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisClusterGroup" + nodes;
    }

    // ---------------------------------------------------------------------------------------------

    private boolean allLiveNodesOk() {
        for (RedisServer node : nodes) {
            if (node.isRunning() && !node.isPaused()
                    && (!"ok".equals(clusterState(node)) || knownNodes(node) != nodes.size())) {
                return false;
            }
        }
        return true;
    }

    private static String clusterState(RedisServer node) {
        return infoField(node, "cluster_state");
    }

    private static int knownNodes(RedisServer node) {
        String known = infoField(node, "cluster_known_nodes");
        return known == null ? -1 : Integer.parseInt(known);
    }

    private static String infoField(RedisServer node, String field) {
        try {
            for (String line : ((String) node.command(PROBE_TIMEOUT, "CLUSTER", "INFO")).split("\r\n")) {
                if (line.startsWith(field + ":")) {
                    return line.substring(field.length() + 1);
                }
            }
            return null;
        } catch (UncheckedIOException | RedisReplyException e) {
            return null;
        }
    }

    private RedisServer anyLiveNode() {
        return nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no live node in " + this));
    }

    private RedisServer node(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node on port " + port));
    }

    private List<ClusterNodeLine> clusterNodes() {
        String text = (String) anyLiveNode().command(PROBE_TIMEOUT, "CLUSTER", "NODES");
        List<ClusterNodeLine> parsed = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                parsed.add(ClusterNodeLine.parse(line.strip()));
            }
        }
        return parsed;
    }

    private static void runCli(List<String> command) {
        try {
            Process cli = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!cli.waitFor(30, TimeUnit.SECONDS)) {
                cli.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " timed out:\n" + output);
            }
            if (cli.exitValue() != 0 || !output.contains("[OK] All 16384 slots covered")) {
                throw new IllegalStateException(String.join(" ", command) + " failed (exit " + cli.exitValue() + "):\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command.get(0) + " (is it on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the cluster", e);
        }
    }
}
