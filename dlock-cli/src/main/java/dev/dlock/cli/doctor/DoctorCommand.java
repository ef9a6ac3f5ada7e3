package dev.dlock.cli.doctor;

import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.LockInfoView;
import dev.dlock.cli.common.UsageException;
import dev.dlock.cli.store.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock doctor}: what the deployment guarantees, one line per check. */
@Command(name = "doctor",
        mixinStandardHelpOptions = true,
        description = {"Checks the servers the locks live on and says what each finding means for the locks: "
                + "server kind and version, persistence, eviction, replicas and WAIT, Sentinel, Cluster, Redlock "
                + "nodes and clocks, round-trip time, the ACL (every lock kind taken and released), pub/sub "
                + "delivery, and the keys under the prefix. One line per check: OK, WARN or FAIL.",
                "On PostgreSQL (only reading): version, recovery, synchronous_commit and standbys, the role's "
                + "server timeouts, a pooler in front, LISTEN/NOTIFY timed, privileges, dlock's schema and its "
                + "vacuum, the clocks, and the connections left for --clients.",
                "On ZooKeeper: each server's version and mode, the quorum, the session timeout granted, the "
                + "chroot, the ensemble's clock, the ACL where dlock's nodes go, and every lock kind taken and released.",
                "Exits 0 when every check is OK, 1 with warnings, 2 with failures."})
public final class DoctorCommand implements Callable<Integer> {

    /** The schema of dlock's tables when the options name none (the library's default). */
    private static final String POSTGRES_SCHEMA = "public";

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object: checks (status, check, node, finding) and exit.")
    private boolean json;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "1",
            description = "PostgreSQL: how many dlock clients (each up to 9 connections) the database is to serve, "
                    + "for the connections check (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Override
    public Integer call() {
        ClientOptions options = dlock.clientOptions();
        if (clients < 1) {
            throw new UsageException("--clients must be at least 1, got " + clients);
        }
        if (options.isZooKeeper()) {
            dlock.clientBuilder();   // the connect string as the library checks it: bad input exits 2 here
            return print(DoctorZooKeeperChecks.all(options.urls().get(0), options::builder));
        }
        if (options.isPostgres()) {
            dlock.clientBuilder();   // the URL and schema as the library checks them: bad input exits 2 here
            String schema = dlock.postgresSchema();
            return print(DoctorPostgresChecks.all(options.postgresUrl(), schema == null ? POSTGRES_SCHEMA : schema,
                    clients));
        }
        String prefix = dlock.prefix();
        dlock.clientBuilder();   // the prefix and URLs as the library checks them: bad input exits 2 here
        List<DoctorCheck> checks = new ArrayList<>();
        List<RedisURI> lockServers = new ArrayList<>();
        if (options.isCluster()) {
            checks.addAll(cluster(options.urls(), prefix, lockServers));
        } else if (options.isSingleRedis()) {
            checks.addAll(oneRedis(options.redisUrl(), prefix, lockServers));
        } else {
            checks.addAll(redlock(options.urls(), prefix, lockServers));
        }
        String label = options.isSingleRedis() ? label(RedisURI.create(options.redisUrl()))
                : options.isCluster() ? "cluster" : "redlock";
        // the probe locks live under a prefix of this run's own, so that their grants raise no token
        // floor of the application's and everything they leave (floors, a lock a failed check kept)
        // can be deleted afterwards without touching anyone else's keys
        String probePrefix = prefix + "doctor:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        checks.addAll(DoctorLockChecks.all(() -> options.builder().keyPrefix(probePrefix), label));
        lockServers.forEach(server -> deleteUnder(server, probePrefix));
        return print(checks);
    }

    private int print(List<DoctorCheck> checks) {
        int exit = DoctorCheck.exitCode(checks);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("checks", checks.stream().map(DoctorCheck::json).toList());
            document.put("exit", exit);
            out.println(LockInfoView.toJson(document));
        } else {
            checks.forEach(check -> out.println(check.line()));
        }
        out.flush();
        return exit;
    }

    private static String label(RedisURI uri) {
        return uri.getSentinels().isEmpty() ? DoctorNode.label(uri) : "master " + uri.getSentinelMasterId();
    }

    /** Deletes every key under {@code probePrefix} on the server; a server that does not answer keeps them. */
    private static void deleteUnder(RedisURI server, String probePrefix) {
        try (DoctorNode node = DoctorNode.connect(server, DoctorNode.label(server))) {
            // one key at a time: on a Cluster node the keys lie in several slots
            node.scan(probePrefix + "*").forEach(key -> node.sync().del(key));
        } catch (RuntimeException e) {
            // unreachable now or DEL refused: its reachable or acl line says so already
        }
    }

    private static List<DoctorCheck> oneRedis(String url, String prefix, List<RedisURI> lockServers) {
        RedisURI uri = RedisURI.create(url);
        List<DoctorCheck> checks = new ArrayList<>();
        if (!uri.getSentinels().isEmpty()) {
            checks.addAll(DoctorTopologyChecks.sentinels(RedisURI.create(url)));
        }
        checks.addAll(onNode(uri, label(uri), prefix, true));
        lockServers.add(uri);
        return checks;
    }

    private static List<DoctorCheck> redlock(List<String> urls, String prefix, List<RedisURI> lockServers) {
        List<DoctorCheck> checks = new ArrayList<>();
        List<DoctorNode> nodes = new ArrayList<>();
        try {
            for (String url : urls) {
                RedisURI uri = RedisURI.create(url);
                lockServers.add(uri);
                try {
                    DoctorNode node = DoctorNode.connect(uri, label(uri));
                    nodes.add(node);
                    checks.addAll(DoctorServerChecks.all(node, prefix, false));
                } catch (RuntimeException e) {
                    checks.add(unreachable(label(uri), e));
                }
            }
            if (nodes.size() < urls.size() / 2 + 1) {
                checks.add(DoctorCheck.fail("redlock-nodes", "redlock", nodes.size() + " of " + urls.size()
                        + " nodes answer, " + (urls.size() / 2 + 1) + " needed: no lock can be taken"));
            } else {
                try {
                    checks.addAll(DoctorTopologyChecks.redlock(nodes, urls.size()));
                } catch (RedisCommandExecutionException refused) {
                    checks.add(DoctorCheck.warn("redlock-nodes", "redlock", "cannot check: the servers refused ("
                            + refused.getMessage() + "); give the doctor's user +info and +time"));
                }
            }
        } finally {
            nodes.forEach(DoctorNode::close);
        }
        return checks;
    }

    private static List<DoctorCheck> cluster(List<String> urls, String prefix, List<RedisURI> lockServers) {
        List<DoctorCheck> checks = new ArrayList<>();
        RuntimeException lastFailure = null;
        for (String url : urls) {
            RedisURI seedUri = RedisURI.create(url);
            DoctorNode seed;
            try {
                seed = DoctorNode.connect(seedUri, DoctorNode.label(seedUri));
            } catch (RuntimeException e) {
                lastFailure = e;
                continue;
            }
            try (seed) {
                try {
                    checks.addAll(DoctorTopologyChecks.cluster(seed));
                } catch (RedisCommandExecutionException refused) {
                    checks.add(DoctorCheck.warn("cluster-slots", "cluster", "cannot check: the server refused ("
                            + refused.getMessage() + "); give the doctor's user +cluster|info, +cluster|nodes"));
                }
                for (String master : DoctorTopologyChecks.clusterMasters(seed)) {
                    RedisURI uri = RedisURI.create(url);
                    int colon = master.lastIndexOf(':');
                    uri.setHost(master.substring(0, colon));
                    uri.setPort(Integer.parseInt(master.substring(colon + 1)));
                    checks.addAll(onNode(uri, DoctorNode.label(uri), prefix, true));
                    lockServers.add(uri);
                }
            }
            return checks;
        }
        checks.add(unreachable(String.join(",", urls), lastFailure));
        return checks;
    }

    private static List<DoctorCheck> onNode(RedisURI uri, String label, String prefix, boolean replicationMatters) {
        try (DoctorNode node = DoctorNode.connect(uri, label)) {
            return DoctorServerChecks.all(node, prefix, replicationMatters);
        } catch (RuntimeException e) {
            return List.of(unreachable(label, e));
        }
    }

    private static DoctorCheck unreachable(String label, RuntimeException e) {
        return DoctorCheck.fail("reachable", label, "cannot be reached or refuses the credentials: "
                + (e == null ? "no URL" : e.getMessage()) + ": no lock can be taken there");
    }
}
