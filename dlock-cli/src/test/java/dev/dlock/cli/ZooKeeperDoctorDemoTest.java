package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code dlock doctor --zookeeper} and {@code dlock demo --zookeeper} on a real 3-server ensemble. */
class ZooKeeperDoctorDemoTest {

    @RegisterExtension
    static final ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.of(3);

    @Test
    void doctorFindsAHealthyEnsembleAndTakesEveryLockKind() {
        Cli.Result result = Cli.run(Duration.ofSeconds(120), "--zookeeper", zookeeper.connectString(), "doctor");

        assertThat(result.exitCode()).as(result.toString()).isIn(0, 1);
        assertThat(result.stdout()).as(result.toString())
                .contains("quorum", "3 of 3 servers serve")
                .contains("ZooKeeper 3.9")
                .containsPattern("OK +session +ensemble +session timeout \\d+ ms granted")
                .containsPattern("OK +acl +ensemble +nodes created and deleted under /dlock/locks")
                .doesNotContain("FAIL");
    }

    @Test
    void doctorSaysWhenNoServerAnswers() {
        Cli.Result result = Cli.run(Duration.ofSeconds(60), "--zookeeper", "127.0.0.1:1", "doctor");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
        assertThat(result.stdout()).containsPattern("FAIL +quorum +ensemble +0 of 1 servers serve")
                .containsPattern("FAIL +reachable +ensemble +no server of 127.0.0.1:1 gave a session");
    }

    @Test
    void doctorSaysWhenTheChrootIsMissing() {
        Cli.Result result = Cli.run(Duration.ofSeconds(60), "--zookeeper", zookeeper.connectString("/no-such-chroot"),
                "doctor");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
        assertThat(result.stdout()).containsPattern("FAIL +chroot +ensemble +the chroot /no-such-chroot does not exist");
    }

    @Test
    void doctorNamesThePathWhoseAclRefusesDlock() throws Exception {
        refusingChroot("/doctor-refused");

        Cli.Result result = Cli.run(Duration.ofSeconds(60), "--zookeeper", zookeeper.connectString("/doctor-refused"),
                "doctor");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
        assertThat(result.stdout()).containsPattern("FAIL +acl +ensemble +refused \\(NOAUTH\\) on /doctor-refused/dlock: the ACL of /doctor-refused/dlock");
    }

    @Test
    void demoSellsExactlyTheStockWithTheLockOnZooKeeper() {
        Cli.Result result = Cli.run(Duration.ofSeconds(180), "--zookeeper", zookeeper.connectString(), "demo",
                "--mode", "lock", "--stock", "7", "--buyers", "300", "--clients", "3", "--threads", "2");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().findFirst())
                .hasValue("zookeeper: using --zookeeper " + zookeeper.connectString() + " (stock and orders under /dlock-demo)");
        DemoTest.Row lock = DemoTest.row(result, "lock");
        assertThat(lock.sold()).isEqualTo(7);
        assertThat(lock.oversold()).isZero();
        assertThat(lock.served()).isEqualTo(300);
    }

    /** A chroot whose /dlock node only a user named "owner" may touch: dlock, without credentials, may not. */
    static void refusingChroot(String chroot) throws Exception {
        ZooKeeper zk = connect();
        try {
            if (zk.exists(chroot, false) == null) {
                zk.create(chroot, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create(chroot + "/dlock", new byte[0], new java.util.ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest())))),
                        CreateMode.PERSISTENT);
            }
        } finally {
            zk.close();
        }
    }

    /** A digest id (user "owner", a password's SHA-1 in base64) that nobody here authenticates as. */
    private static String digest() {
        return "owner:x1ZJ3C6PD6mVKs3M0kfYtC6vtHI=";
    }

    private static ZooKeeper connect() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(zookeeper.connectString(), 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertThat(connected.await(20, TimeUnit.SECONDS)).isTrue();
        return zk;
    }
}
