package dev.dlock.cli.doctor;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks of {@code dlock doctor} on how the servers are put together: a Sentinel group, a
 * Cluster, the masters of a Redlock.
 */
final class DoctorTopologyChecks {

    /** Clocks further apart than this make fencing tokens (server time) jump back between servers. */
    private static final long SKEW_WARN_MS = 500;

    private DoctorTopologyChecks() {
    }

    /** The sentinels of a Sentinel URL: how many answer, their quorum, whether they agree on the master. */
    static List<DoctorCheck> sentinels(RedisURI uri) {
        String master = uri.getSentinelMasterId();
        String label = "sentinel " + master;
        List<String> unreachable = new ArrayList<>();
        Map<String, String> addressBySentinel = new LinkedHashMap<>();
        Map<String, String> state = null;
        for (RedisURI sentinel : uri.getSentinels()) {
            String where = sentinel.getHost() + ":" + sentinel.getPort();
            sentinel.setTimeout(DoctorNode.TIMEOUT);
            RedisClient client = RedisClient.create(sentinel);
            try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
                SocketAddress address = connection.sync().getMasterAddrByName(master);
                addressBySentinel.put(where, address instanceof InetSocketAddress inet
                        ? inet.getHostString() + ":" + inet.getPort() : String.valueOf(address));
                if (state == null) {
                    state = connection.sync().master(master);
                }
            } catch (RuntimeException e) {
                unreachable.add(where + " (" + e.getMessage() + ")");
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        }
        int given = uri.getSentinels().size();
        int answering = addressBySentinel.size();
        List<DoctorCheck> checks = new ArrayList<>();
        Set<String> masters = new HashSet<>(addressBySentinel.values());
        if (masters.size() > 1) {
            checks.add(DoctorCheck.fail("sentinel-agree", label, "the sentinels name different masters " + addressBySentinel
                    + ": clients may write to two masters, and a lock be held twice"));
        } else if (answering > 0) {
            checks.add(DoctorCheck.ok("sentinel-agree", label, "the " + answering + " answering sentinels agree: master "
                    + masters.iterator().next()));
        }
        if (state == null) {
            checks.add(DoctorCheck.fail("sentinels", label, "no sentinel answered: " + String.join(", ", unreachable)));
            return checks;
        }
        int quorum = Integer.parseInt(state.getOrDefault("quorum", "0"));
        int known = Integer.parseInt(state.getOrDefault("num-other-sentinels", "0")) + 1;
        String flags = state.getOrDefault("flags", "");
        String counted = answering + " of " + given + " given sentinels answer, " + known + " known to them, quorum "
                + quorum;
        if (flags.contains("s_down") || flags.contains("o_down")) {
            checks.add(DoctorCheck.fail("sentinels", label, counted + "; the master is marked down (" + flags
                    + "): locks fail until a failover ends"));
        } else if (known < 3 || answering < given || known / 2 + 1 > answering) {
            checks.add(DoctorCheck.warn("sentinels", label, counted + (unreachable.isEmpty() ? "" : "; not answering: "
                    + String.join(", ", unreachable)) + ": with fewer than 3 sentinels, or a majority not answering, "
                    + "a failover may not happen (or be authorised) when the master dies"));
        } else {
            checks.add(DoctorCheck.ok("sentinels", label, counted + ": a failover needs " + quorum
                    + " to agree the master is down and a majority (" + (known / 2 + 1) + ") to authorise it"));
        }
        return checks;
    }

    /** A Cluster: slot coverage, cluster-require-full-coverage, masters without replicas. */
    static List<DoctorCheck> cluster(DoctorNode seed) {
        List<DoctorCheck> checks = new ArrayList<>();
        Map<String, String> info = new HashMap<>();
        for (String line : seed.sync().clusterInfo().split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                info.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        int slotsOk = Integer.parseInt(info.getOrDefault("cluster_slots_ok", "0"));
        if (!"ok".equals(info.get("cluster_state")) || slotsOk < 16384) {
            checks.add(DoctorCheck.fail("cluster-slots", "cluster", slotsOk + " of 16384 slots served (cluster_state "
                    + info.get("cluster_state") + "): a lock whose name falls in a slot not served cannot be taken"));
        } else {
            checks.add(DoctorCheck.ok("cluster-slots", "cluster", "all 16384 slots served"));
        }
        Map<String, String> coverage = seed.configOrNull("cluster-require-full-coverage");
        if (coverage == null) {
            checks.add(DoctorCheck.warn("cluster-cover", "cluster", "cluster-require-full-coverage unknown: CONFIG GET refused"));
        } else if ("yes".equalsIgnoreCase(coverage.get("cluster-require-full-coverage"))) {
            checks.add(DoctorCheck.ok("cluster-cover", "cluster", "cluster-require-full-coverage yes: a shard with no "
                    + "master stops every lock of the cluster until it is back"));
        } else {
            checks.add(DoctorCheck.ok("cluster-cover", "cluster", "cluster-require-full-coverage no: a shard with no "
                    + "master stops only the locks in its slots"));
        }
        Map<String, Integer> replicasByMaster = new LinkedHashMap<>();
        Map<String, String> addressById = new HashMap<>();
        List<String[]> lines = new ArrayList<>();
        for (String line : seed.sync().clusterNodes().split("\n")) {
            if (!line.isBlank()) {
                lines.add(line.trim().split(" "));
            }
        }
        for (String[] fields : lines) {
            if (fields[2].contains("master") && !fields[2].contains("fail") && fields.length > 8) {
                replicasByMaster.put(fields[0], 0);
                addressById.put(fields[0], fields[1].split("@")[0]);
            }
        }
        for (String[] fields : lines) {
            if (fields[2].contains("slave") && !fields[2].contains("fail") && replicasByMaster.containsKey(fields[3])) {
                replicasByMaster.merge(fields[3], 1, Integer::sum);
            }
        }
        List<String> alone = replicasByMaster.entrySet().stream().filter(entry -> entry.getValue() == 0)
                .map(entry -> addressById.get(entry.getKey())).toList();
        if (!alone.isEmpty()) {
            checks.add(DoctorCheck.warn("cluster-replicas", "cluster", "masters without a replica: " + String.join(", ", alone)
                    + ": losing one stops the locks of its slots (nothing to promote) until it is back"));
        } else {
            checks.add(DoctorCheck.ok("cluster-replicas", "cluster", "every one of the " + replicasByMaster.size()
                    + " masters has a replica"));
        }
        return checks;
    }

    /** The masters of a Cluster as CLUSTER NODES tells, {@code host:port} each. */
    static List<String> clusterMasters(DoctorNode seed) {
        List<String> masters = new ArrayList<>();
        for (String line : seed.sync().clusterNodes().split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length > 8 && fields[2].contains("master") && !fields[2].contains("fail")) {
                masters.add(fields[1].split("@")[0]);
            }
        }
        return masters;
    }

    /**
     * A Redlock's masters: distinct servers (run_id), none a replica, and their clocks.
     *
     * @param nodes the nodes that answer, at least a quorum of the {@code given}
     * @param given how many nodes the URLs name
     */
    static List<DoctorCheck> redlock(List<DoctorNode> nodes, int given) {
        List<DoctorCheck> checks = new ArrayList<>();
        Map<String, List<String>> byRunId = new LinkedHashMap<>();
        for (DoctorNode node : nodes) {
            byRunId.computeIfAbsent(node.info("server").get("run_id"), id -> new ArrayList<>()).add(node.label());
        }
        List<String> same = byRunId.values().stream().filter(labels -> labels.size() > 1)
                .map(labels -> String.join(" = ", labels)).toList();
        if (!same.isEmpty()) {
            checks.add(DoctorCheck.fail("redlock-nodes", "redlock", "the same server under several URLs: " + String.join("; ", same)
                    + ": it votes more than once, so a quorum can be one server and the lock held twice"));
        } else if (nodes.size() < given) {
            // what the nodes that do not answer are (distinct servers or another URL of one that answers) is not known
            int quorum = given / 2 + 1;
            int spare = nodes.size() - quorum;
            int silent = given - nodes.size();
            checks.add(DoctorCheck.warn("redlock-nodes", "redlock", nodes.size() + " of " + given + " nodes answer, "
                    + "distinct servers (run_id): a quorum of " + quorum + " survives the loss of "
                    + (spare == 0 ? "none more" : spare + " more") + " (of " + (given - 1) / 2 + " when all answer); "
                    + "whether " + (silent == 1 ? "the one not answering is a server of its own"
                    : "the " + silent + " not answering are servers of their own") + " is not known"));
        } else {
            checks.add(DoctorCheck.ok("redlock-nodes", "redlock", nodes.size() + " distinct servers (run_id): a quorum of "
                    + (nodes.size() / 2 + 1) + " survives the loss of " + (nodes.size() - 1) / 2));
        }
        long hostMax = 0;
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        for (DoctorNode node : nodes) {
            long before = System.currentTimeMillis() * 1000;
            long server = node.timeMicros();
            long after = System.currentTimeMillis() * 1000;
            long offsetMs = (server - (before + after) / 2) / 1000;
            hostMax = Math.max(hostMax, Math.abs(offsetMs));
            low = Math.min(low, offsetMs);
            high = Math.max(high, offsetMs);
        }
        long spread = high - low;
        String measured = "clocks (TIME) " + spread + " ms apart, at most " + hostMax + " ms from this host";
        if (spread > SKEW_WARN_MS || hostMax > SKEW_WARN_MS) {
            checks.add(DoctorCheck.warn("clock-skew", "redlock", measured + ": fencing tokens are server time, so a "
                    + "grant by a node whose clock is behind may carry a lower token; run NTP on every node"));
        } else {
            checks.add(DoctorCheck.ok("clock-skew", "redlock", measured));
        }
        return checks;
    }
}
