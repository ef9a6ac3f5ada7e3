package dev.dlock.cli;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
                "Exits 0 when every check is OK, 1 with warnings, 2 with failures."})
public final class DoctorCommand implements Callable<Integer> {

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object: checks (status, check, node, finding) and exit.")
    private boolean json;

    @Override
    public Integer call() {
        ClientOptions options = dlock.clientOptions();
        if (options.isPostgres()) {
            throw new UsageException("dlock doctor checks Redis and Valkey deployments (--redis, --cluster, --redlock), "
                    + "not PostgreSQL");
        }
        String prefix = dlock.prefix();
        dlock.clientBuilder();   // the prefix and URLs as the library checks them: bad input exits 2 here
        List<DoctorCheck> checks = new ArrayList<>();
        if (options.isCluster()) {
            checks.addAll(cluster(options.urls(), prefix));
        } else if (options.isSingleRedis()) {
            checks.addAll(oneRedis(options.redisUrl(), prefix));
        } else {
            checks.addAll(redlock(options.urls(), prefix));
        }
        String label = options.isSingleRedis() ? label(RedisURI.create(options.redisUrl()))
                : options.isCluster() ? "cluster" : "redlock";
        checks.addAll(DoctorLockChecks.all(dlock::clientBuilder, label));
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

    private static List<DoctorCheck> oneRedis(String url, String prefix) {
        RedisURI uri = RedisURI.create(url);
        List<DoctorCheck> checks = new ArrayList<>();
        if (!uri.getSentinels().isEmpty()) {
            checks.addAll(DoctorTopologyChecks.sentinels(RedisURI.create(url)));
        }
        checks.addAll(onNode(uri, label(uri), prefix, true));
        return checks;
    }

    private static List<DoctorCheck> redlock(List<String> urls, String prefix) {
        List<DoctorCheck> checks = new ArrayList<>();
        List<DoctorNode> nodes = new ArrayList<>();
        try {
            for (String url : urls) {
                RedisURI uri = RedisURI.create(url);
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
                    checks.addAll(DoctorTopologyChecks.redlock(nodes));
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

    private static List<DoctorCheck> cluster(List<String> urls, String prefix) {
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
