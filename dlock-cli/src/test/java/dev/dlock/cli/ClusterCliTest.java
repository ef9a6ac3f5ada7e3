package dev.dlock.cli;

import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The commands on a Redis Cluster (3 masters, 3 replicas) named with {@code --cluster} and one seed
 * node: one lock on each master, so {@code list} must walk every master, not the seed alone.
 */
class ClusterCliTest extends TopologyCliContract {

    private static RedisClusterGroup cluster;
    private static List<String> names;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterGroup.start();
        names = oneNamePerMaster();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    List<String> topology() {
        return List.of("--cluster", cluster.uris().get(0));
    }

    @Override
    List<String> names() {
        return names;
    }

    @Override
    List<RedisServer> serversOf(String name) {
        return List.of(cluster.masterOf("dlock:{" + name + "}"));
    }

    private static List<String> oneNamePerMaster() {
        Set<RedisServer> covered = new HashSet<>();
        List<String> chosen = new ArrayList<>();
        for (int i = 0; covered.size() < cluster.masters().size(); i++) {
            String name = "cluster-job-" + i;
            if (covered.add(cluster.masterOf("dlock:{" + name + "}"))) {
                chosen.add(name);
            }
        }
        return List.copyOf(chosen);
    }
}
