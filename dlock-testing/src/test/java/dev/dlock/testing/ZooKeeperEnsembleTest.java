package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperEnsembleTest {

    @RegisterExtension
    static final ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.of(3);

    @Test
    void threeServersServeWithOneLeaderEachInAJvmOfItsOwn() {
        assertThat(zookeeper.servers()).hasSize(3);
        assertThat(zookeeper.servers().stream().map(ZooKeeperServer::pid).distinct()).hasSize(3);
        assertThat(zookeeper.servers().stream().map(ZooKeeperServer::mode).filter("leader"::equals)).hasSize(1);
        assertThat(zookeeper.connectString("/app")).matches("127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+/app");
    }

    @Test
    void aKilledLeaderIsReplacedAndComesBackAsAFollower() {
        ZooKeeperServer leader = zookeeper.leader().orElseThrow();
        leader.kill();
        await().atMost(Duration.ofSeconds(30)).until(() -> zookeeper.leader().filter(l -> l != leader).isPresent());
        zookeeper.restart(leader);
        zookeeper.awaitQuorum();
        assertThat(leader.mode()).isEqualTo("follower");
    }

    @Test
    void aPausedServerDoesNotAnswerUntilResumed() {
        ZooKeeperServer server = zookeeper.server(0);
        server.pause();
        assertThat(server.fourLetter("ruok")).isEmpty();
        server.resume();
        await().atMost(Duration.ofSeconds(30)).until(() -> server.fourLetter("ruok").equals("imok"));
    }
}
