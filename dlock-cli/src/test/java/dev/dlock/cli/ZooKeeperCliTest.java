package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.ZooKeeperEnsemble;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The commands with the locks in ZooKeeper ({@code --zookeeper CONNECT}, or {@code $DLOCK_ZOOKEEPER}). */
class ZooKeeperCliTest extends TopologyCliContract {

    @RegisterExtension
    static final ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.of(3);

    @Override
    List<String> topology() {
        return List.of("--zookeeper", zookeeper.connectString());
    }

    @Override
    List<String> names() {
        return List.of("zk-report", "zk-backup");
    }

    @Override
    List<RedisServer> serversOf(String name) {
        return List.of();
    }

    @Override
    void assertStored(String name, boolean held, String when) {
        assertThat(holdNodes(name)).as("nodes of '%s' in ZooKeeper %s", name, when).isEqualTo(held ? 1 : 0);
    }

    private static int holdNodes(String name) {
        CountDownLatch connected = new CountDownLatch(1);
        try {
            ZooKeeper zk = new ZooKeeper(zookeeper.connectString(), 10_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                assertThat(connected.await(20, TimeUnit.SECONDS)).isTrue();
                return zk.getChildren("/dlock/locks/" + URLEncoder.encode("dlock:{" + name + "}", StandardCharsets.UTF_8),
                        false).size();
            } catch (KeeperException.NoNodeException e) {
                return 0;
            } finally {
                zk.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theConnectStringMayComeFromTheEnvironment() {
        Cli.Result result = Cli.start(Map.of("DLOCK_ZOOKEEPER", zookeeper.connectString()),
                "exec", "--wait", "10s", "from-env", "--", "sh", "-c", "test -n \"$DLOCK_FENCING_TOKEN\"")
                .await(Duration.ofSeconds(60));
        assertThat(result.exitCode()).as(result.toString()).isZero();
    }

    @Test
    void aConnectStringThatIsNotOneIsBadInput() {
        Cli.Result result = Cli.run("--zookeeper", "zk://a:2181", "status", "x");
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.stderr()).contains("--zookeeper: not a ZooKeeper connect string: 'zk://a:2181'");
    }

    @Test
    void aMissingChrootIsOneClearError() {
        Cli.Result result = Cli.run("--zookeeper", zookeeper.connectString("/no-such-chroot"), "status", "x");
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(result.stderr()).contains("the chroot '/no-such-chroot' does not exist");
    }
}
