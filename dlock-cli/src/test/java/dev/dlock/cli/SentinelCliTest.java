package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.store.RedisOptions;
import dev.dlock.testing.RedisSentinelGroup;
import dev.dlock.testing.RedisServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The commands on a master named by Redis Sentinels (1 master, 2 replicas, 3 sentinels), through a Sentinel URL. */
class SentinelCliTest extends TopologyCliContract {

    private static RedisSentinelGroup group;

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start("cli");
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    @Override
    List<String> topology() {
        return List.of("--redis", group.sentinelUri());
    }

    @Override
    List<String> names() {
        return List.of("sentinel-job");
    }

    @Override
    List<RedisServer> serversOf(String name) {
        return List.of(group.master());
    }

    @Test
    void aSentinelUrlInRedisUrlIsUsedAsWell() {
        Map<String, String> env = Map.of(RedisOptions.URL_ENV, group.sentinelUri());
        try (Cli.Running holder = Cli.start(env, "exec", "env-job", "--", "sleep", "3600")) {
            // the lock is taken on the master the sentinels name, nowhere else
            await().atMost(Cli.BOUND).until(() -> exists(group.master(), "env-job"));

            Cli.Result status = Cli.start(env, "status", "env-job").await(Cli.BOUND);
            assertThat(status.exitCode()).as(status.toString()).isZero();
            assertThat(status.stdout()).contains("lock 'env-job': held", "dlock-exec:sleep on ");

            Cli.Result release = Cli.start(env, "release", "--force", "env-job").await(Cli.BOUND);
            assertThat(release.exitCode()).as(release.toString()).isZero();
            assertThat(exists(group.master(), "env-job")).isFalse();
            Cli.Result stopped = holder.await(Cli.BOUND);
            assertThat(stopped.exitCode()).as(stopped.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        }
    }
}
