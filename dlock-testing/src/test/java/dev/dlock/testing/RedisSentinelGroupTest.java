package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisSentinelGroupTest {

    @Test
    void replicatesAndFailsOverToAReplicaWhenTheMasterIsKilled() {
        try (RedisSentinelGroup group = RedisSentinelGroup.start("harness")) {
            RedisServer master = group.master();
            assertThat(RedisSentinelGroup.role(master)).isEqualTo("master");
            assertThat(group.masterPortPerSentinels()).isEqualTo(master.port());
            assertThat(group.sentinelUri()).startsWith("redis-sentinel://127.0.0.1:").endsWith("?sentinelMasterId=harness");

            master.command("SET", "k", "v");
            assertThat(master.command("WAIT", "2", "20000")).as("replicas that acknowledged the write").isEqualTo(2L);
            for (RedisServer replica : group.replicas()) {
                assertThat(RedisSentinelGroup.role(replica)).isEqualTo("slave");
                // acknowledged means received; the replica applies it a moment later
                await().atMost(Duration.ofSeconds(10)).until(() -> "v".equals(replica.command("GET", "k")));
            }

            master.kill();
            RedisServer promoted = group.awaitFailover(Duration.ofSeconds(30));

            assertThat(promoted).isNotSameAs(master).isSameAs(group.master());
            assertThat(group.replicas()).doesNotContain(promoted);
            assertThat(RedisSentinelGroup.role(promoted)).isEqualTo("master");
            assertThat(promoted.command("GET", "k")).isEqualTo("v");
            assertThat(promoted.command("SET", "after", "failover")).isEqualTo("OK");
        }
    }
}
