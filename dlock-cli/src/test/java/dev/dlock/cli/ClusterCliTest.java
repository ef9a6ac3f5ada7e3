package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The commands on a Redis Cluster (3 masters, 3 replicas) named with {@code --cluster} and one seed
 * node: one lock on each master, so {@code list} must walk every master, not the seed alone. The
 * failover test runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
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

    @Test
    @Order(Integer.MAX_VALUE)
    void listAfterAMasterFailoverShowsEveryShardAndNamesAMasterThatDoesNotAnswer() throws Exception {
        RedisServer seed = cluster.nodes().get(0);
        try (LockClient holder = LockClient.builder().store(RedisStore.cluster(cluster.uris().toArray(String[]::new))).build()) {
            for (String name : names) {
                // a lease past the test's dlock runs: each JVM took over a minute to start at a load of 40
                assertThat(holder.getLock(name).tryLock(Duration.ZERO, Duration.ofMinutes(10))).isTrue();
            }
            RedisServer victim = cluster.masters().stream().filter(master -> master != seed).findFirst().orElseThrow();
            cluster.masters().forEach(master -> master.command("WAIT", "1", "5000"));
            cluster.killMasterAndAwaitPromotion(victim, Duration.ofSeconds(30));

            // the killed master stays in the node table, failed and without slots: list walks the others
            Cli.Result list = dlock("list");
            assertThat(list.exitCode()).as(list.toString()).isZero();
            names.forEach(name -> assertThat(list.stdout()).as(list.toString()).contains(name));

            RedisServer paused = cluster.masters().stream().filter(master -> master != seed).findFirst().orElseThrow();
            List<String> onPaused = names.stream().filter(name -> cluster.masterOf("dlock:{" + name + "}") == paused).toList();
            // long enough for a JVM to start on a loaded machine (over a minute at a load of 40) and for the
            // list's command timeout (Cli: 10 s); the cluster stops after this test
            paused.command("CLIENT", "PAUSE", "300000", "ALL");
            Cli.Result partial = dlock("list");
            assertThat(partial.exitCode()).as(partial.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            assertThat(partial.stderr()).as(partial.toString()).startsWith("dlock: list incomplete: 1 of 3 masters failed "
                    + "(redis://127.0.0.1:" + paused.port() + ": ");
            for (String name : names) {
                assertThat(partial.stdout().contains(name)).as("%s listed\n%s", name, partial)
                        .isEqualTo(!onPaused.contains(name));
            }
        }
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
