package dev.dlock.cli.doctor;

import dev.dlock.cli.common.Durations;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.SetArgs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The checks of {@code dlock doctor} on one server that holds locks (a standalone Redis, a
 * Sentinel's master, a Cluster master, a Redlock node): kind and version, persistence, eviction,
 * replication and WAIT, round-trip time, and the keys under the prefix.
 */
final class DoctorServerChecks {

    /** A round trip above this (p99) eats into the default command timeout (3 s) and lease (30 s). */
    private static final long SLOW_RTT_MS = 100;
    private static final int PINGS = 50;
    private static final int WAIT_PROBES = 5;
    private static final long WAIT_TIMEOUT_MS = 500;

    private DoctorServerChecks() {
    }

    static List<DoctorCheck> all(DoctorNode node, String prefix, boolean replicationMatters) {
        List<DoctorCheck> checks = new ArrayList<>();
        checks.add(guarded("server", node, () -> server(node, node.info("server"))));
        checks.add(guarded("role", node, () -> role(node)));
        checks.add(guarded("persistence", node, () -> persistence(node)));
        checks.add(guarded("eviction", node, () -> eviction(node)));
        if (replicationMatters) {
            checks.add(guarded("replicas", node, () -> replicas(node, node.info("replication"))));
            checks.add(guarded("wait", node, () -> replicaAcks(node, node.info("replication"), prefix)));
        }
        checks.add(guarded("latency", node, () -> latency(node)));
        checks.add(guarded("keys", node, () -> keys(node, prefix)));
        return checks;
    }

    /** A check whose command the server refuses (an ACL without INFO, say) is a warning: it could not be made. */
    private static DoctorCheck guarded(String name, DoctorNode node, Supplier<DoctorCheck> check) {
        try {
            return check.get();
        } catch (RedisCommandExecutionException refused) {
            return DoctorCheck.warn(name, node.label(), "cannot check: the server refused (" + refused.getMessage()
                    + "); give the doctor's user +info and +config|get, or check by hand");
        }
    }

    static DoctorCheck role(DoctorNode node) {
        Map<String, String> replication = node.info("replication");
        if (!"master".equals(replication.get("role"))) {
            return DoctorCheck.fail("role", node.label(), "a replica (role " + replication.get("role")
                    + "): it refuses the scripts' writes (READONLY); give dlock the master");
        }
        return DoctorCheck.ok("role", node.label(), "master: takes the locks' writes");
    }

    static DoctorCheck server(DoctorNode node, Map<String, String> server) {
        String valkey = server.get("valkey_version");
        String redis = server.getOrDefault("redis_version", "?");
        String kind = valkey != null ? "Valkey " + valkey : "Redis " + redis;
        int major = major(valkey != null ? valkey : redis);
        if (valkey == null && major < 7) {
            return DoctorCheck.fail("server", node.label(), kind + ": dlock needs Redis 7.0 or newer (sharded pub/sub, "
                    + "script flags); tested on Redis 7.0.15 and Valkey 8.0.1");
        }
        return DoctorCheck.ok("server", node.label(), kind + " (dlock is tested on Redis 7.0.15 and Valkey 8.0.1)");
    }

    private static int major(String version) {
        try {
            return Integer.parseInt(version.substring(0, version.indexOf('.')));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    static DoctorCheck persistence(DoctorNode node) {
        Map<String, String> config = node.configOrNull("appendonly", "appendfsync", "save");
        if (config == null) {
            return DoctorCheck.warn("persistence", node.label(), "unknown: CONFIG GET refused; ask the provider whether "
                    + "a restart keeps the data (without it a restart forgets every lock while its lease runs)");
        }
        boolean aof = "yes".equalsIgnoreCase(config.get("appendonly"));
        String fsync = config.getOrDefault("appendfsync", "?");
        boolean rdb = !config.getOrDefault("save", "").isBlank();
        if (aof && "always".equalsIgnoreCase(fsync)) {
            return DoctorCheck.ok("persistence", node.label(), "AOF with appendfsync always: a restart keeps every grant");
        }
        if (aof) {
            return DoctorCheck.warn("persistence", node.label(), "AOF with appendfsync " + fsync + ": a crash may forget "
                    + "the last second of grants, and another holder can get in at the restart; appendfsync always closes it");
        }
        if (rdb) {
            return DoctorCheck.warn("persistence", node.label(), "RDB snapshots only (save " + config.get("save")
                    + "): a restart forgets the locks taken since the last snapshot while their leases run");
        }
        return DoctorCheck.warn("persistence", node.label(), "neither AOF nor RDB: a restart forgets every lock while "
                + "its lease runs, and another holder gets in at once; turn on appendonly, or keep a restarted server "
                + "out for one lease");
    }

    static DoctorCheck eviction(DoctorNode node) {
        Map<String, String> config = node.configOrNull("maxmemory", "maxmemory-policy");
        if (config == null) {
            return DoctorCheck.warn("eviction", node.label(), "unknown: CONFIG GET refused; ask the provider for "
                    + "maxmemory-policy: any policy but noeviction can delete a held lock's key");
        }
        String maxMemory = config.getOrDefault("maxmemory", "0");
        String policy = config.getOrDefault("maxmemory-policy", "?");
        if ("0".equals(maxMemory.trim())) {
            return DoctorCheck.ok("eviction", node.label(), "no maxmemory: no key is evicted");
        }
        if ("noeviction".equalsIgnoreCase(policy)) {
            return DoctorCheck.ok("eviction", node.label(), "maxmemory " + maxMemory + " with noeviction: a full server "
                    + "refuses new locks (an error), it never deletes a held one");
        }
        return DoctorCheck.fail("eviction", node.label(), "maxmemory " + maxMemory + " with " + policy + ": under memory "
                + "pressure a held lock's key can be evicted and a second holder get in; set noeviction or give the "
                + "locks a server of their own");
    }

    static DoctorCheck replicas(DoctorNode node, Map<String, String> replication) {
        int count = Integer.parseInt(replication.getOrDefault("connected_slaves", "0"));
        if (count == 0) {
            return DoctorCheck.ok("replicas", node.label(), "none: nothing to fail over to, so no grant can be lost "
                    + "to a failover (and none survives the server's loss)");
        }
        List<String> lagging = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String line = replication.get("slave" + i);
            if (line == null) {
                continue;
            }
            Map<String, String> fields = new java.util.HashMap<>();
            for (String pair : line.split(",")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    fields.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
            String where = fields.get("ip") + ":" + fields.get("port");
            long lag = Long.parseLong(fields.getOrDefault("lag", "0"));
            seen.add(where);
            if (lag > 1 || !"online".equals(fields.get("state"))) {
                lagging.add(where + " (" + fields.get("state") + ", lag " + Durations.format(java.time.Duration.ofSeconds(lag)) + ")");
            }
        }
        if (!lagging.isEmpty()) {
            return DoctorCheck.warn("replicas", node.label(), count + " replica(s), behind: " + String.join(", ", lagging)
                    + ": a failover to it now would lose recent grants, and a second holder could get in");
        }
        return DoctorCheck.ok("replicas", node.label(), count + " replica(s) in step (each acknowledged within the "
                + "last second): " + String.join(", ", seen)
                + "; grants reach them asynchronously unless replicaAcks waits for them");
    }

    static DoctorCheck replicaAcks(DoctorNode node, Map<String, String> replication, String prefix) {
        int replicas = Integer.parseInt(replication.getOrDefault("connected_slaves", "0"));
        try {
            node.sync().waitForReplication(0, 1);
        } catch (RedisCommandExecutionException refused) {
            return DoctorCheck.warn("wait", node.label(), "WAIT refused (" + refused.getMessage() + "): replicaAcks "
                    + "cannot be used, so a failover may lose a grant");
        }
        if (replicas == 0) {
            return DoctorCheck.ok("wait", node.label(), "WAIT allowed; no replicas to acknowledge");
        }
        long[] rtts = new long[WAIT_PROBES];
        long[] acks = new long[WAIT_PROBES];
        String probeKey = prefix + "doctor:wait-probe";
        for (int i = 0; i < WAIT_PROBES; i++) {
            long start = System.nanoTime();
            try {
                node.sync().set(probeKey, "1", SetArgs.Builder.px(1000));
            } catch (RedisCommandExecutionException refused) {
                return DoctorCheck.warn("wait", node.label(), "WAIT allowed, but the probe's write was refused ("
                        + refused.getMessage() + "), so its cost was not measured");
            }
            acks[i] = node.sync().waitForReplication(replicas, WAIT_TIMEOUT_MS);
            rtts[i] = System.nanoTime() - start;
        }
        node.sync().del(probeKey);
        java.util.Arrays.sort(rtts);
        String cost = millis(rtts[WAIT_PROBES / 2]) + " per write and WAIT (median of " + WAIT_PROBES + ")";
        long shortProbes = java.util.Arrays.stream(acks).filter(acked -> acked < replicas).count();
        // one probe that falls short is a blip of the moment (the replica between two reads of its
        // link); most probes falling short is what grants with replicaAcks would meet
        java.util.Arrays.sort(acks);
        long acked = acks[WAIT_PROBES / 2];
        if (acked < replicas) {
            return DoctorCheck.warn("wait", node.label(), "only " + acked + " of " + replicas + " replicas acknowledged "
                    + "within " + WAIT_TIMEOUT_MS + " ms (in " + shortProbes + " of " + WAIT_PROBES + " probes): replicaAcks("
                    + replicas + ", ...) would fail grants; " + cost);
        }
        return DoctorCheck.ok("wait", node.label(), "WAIT allowed, " + replicas + " of " + replicas
                + " acknowledged" + (shortProbes == 0 ? "" : " (" + shortProbes + " of " + WAIT_PROBES + " probes fell short)")
                + ": replicaAcks(" + replicas + ", ...) costs about " + cost + " on each grant");
    }

    static DoctorCheck latency(DoctorNode node) {
        long[] rtts = node.pingNanos(PINGS);
        long p50 = rtts[PINGS / 2];
        long p99 = rtts[(int) Math.ceil(PINGS * 0.99) - 1];
        String measured = "round trip p50 " + millis(p50) + ", p99 " + millis(p99) + " (" + PINGS + " PINGs)";
        if (TimeUnit.NANOSECONDS.toMillis(p99) > SLOW_RTT_MS) {
            return DoctorCheck.warn("latency", node.label(), measured + ": slow for a lock; every acquire, renewal and "
                    + "release is at least one round trip, and a Redlock node timeout must exceed it");
        }
        return DoctorCheck.ok("latency", node.label(), measured);
    }

    static DoctorCheck keys(DoctorNode node, String prefix) {
        List<String> keys;
        try {
            keys = node.scan(prefix + "*");
        } catch (RedisCommandExecutionException refused) {
            return DoctorCheck.warn("keys", node.label(), "SCAN refused (" + refused.getMessage() + "): dlock list "
                    + "cannot show the locks");
        }
        long clients = keys.stream().filter(key -> key.startsWith(prefix + "client:")).count();
        long floors = keys.stream().filter(key -> key.startsWith(prefix + "token-floor")).count();
        long locks = keys.size() - clients - floors;
        return DoctorCheck.ok("keys", node.label(), "under '" + prefix + "': " + locks + " lock keys, " + clients
                + " client records, " + floors + " token floors");
    }

    static String millis(long nanos) {
        double ms = nanos / 1_000_000.0;
        return ms < 10 ? String.format("%.2f ms", ms) : String.format("%.0f ms", ms);
    }
}
