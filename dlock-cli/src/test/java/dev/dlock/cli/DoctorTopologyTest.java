package dev.dlock.cli;

import static dev.dlock.cli.DoctorTest.doctor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.cli.DoctorTest.Run;
import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisSentinelGroup;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.SkewedClockLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dlock doctor} on a Sentinel group, a Cluster and Redlock masters, real ones, healthy and broken. */
class DoctorTopologyTest {

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        open.add(resource);
        return resource;
    }

    @Test
    void sentinelsThatAgreeAreOkOneDownWarnsAndDisagreementOrADownMasterFails() {
        RedisSentinelGroup group = track(RedisSentinelGroup.start("doctor"));
        Run healthy = doctor("--redis", group.sentinelUri());
        assertThat(healthy.line("sentinel-agree")).as(healthy.toString()).startsWith("OK ")
                .contains("master 127.0.0.1:" + group.master().port());
        assertThat(healthy.line("sentinels")).as(healthy.toString()).startsWith("OK ").contains("3 of 3", "quorum 2");
        assertThat(healthy.line("replicas")).as(healthy.toString()).contains("2 replica(s)");
        assertThat(healthy.line("pubsub")).as(healthy.toString()).startsWith("OK ");

        group.sentinels().get(2).kill();
        Run oneDown = doctor("--redis", group.sentinelUri());
        assertThat(oneDown.line("sentinels")).as(oneDown.toString()).startsWith("WARN ").contains("2 of 3");
        assertThat(oneDown.exit()).isPositive();

        // a sentinel of another group that monitors another master under the same name
        RedisSentinelGroup other = track(RedisSentinelGroup.start("doctor"));
        RedisServer stranger = other.sentinels().get(0);
        String mixed = group.sentinelUri().replace("?", ",127.0.0.1:" + stranger.port() + "?");
        Run disagree = doctor("--redis", mixed);
        assertThat(disagree.line("sentinel-agree")).as(disagree.toString()).startsWith("FAIL ")
                .contains("different masters", "127.0.0.1:" + other.master().port());
        assertThat(disagree.exit()).isEqualTo(2);

        // the master dies with no replica to promote (both paused): the sentinels mark it down and keep it
        group.replicas().forEach(RedisServer::pause);
        group.master().kill();
        RedisServer sentinel = group.sentinels().get(0);
        await().atMost(Duration.ofSeconds(30)).until(() -> String.valueOf(sentinel.command("SENTINEL", "MASTER", "doctor"))
                .contains("s_down"));
        Run down = doctor("--redis", group.sentinelUri());
        assertThat(down.line("sentinels")).as(down.toString()).startsWith("FAIL ").contains("marked down");
        assertThat(down.exit()).isEqualTo(2);
    }

    @Test
    void aClusterWithConfigRefusedOrAMasterAloneWarnsAndWithASlotUnservedFails() {
        RedisClusterGroup cluster = track(RedisClusterGroup.start());
        Run healthy = doctor("--cluster", cluster.uris().get(0));
        assertThat(healthy.line("cluster-slots")).as(healthy.toString()).startsWith("OK ");
        assertThat(healthy.line("cluster-replicas")).as(healthy.toString()).startsWith("OK ").contains("3 masters");
        assertThat(healthy.line("cluster-cover")).as(healthy.toString()).contains("cluster-require-full-coverage yes");
        assertThat(healthy.line("acl")).as(healthy.toString()).startsWith("OK ");
        assertThat(healthy.line("pubsub")).as(healthy.toString()).startsWith("OK ");
        for (RedisServer node : cluster.masters()) {
            assertThat(node.command("KEYS", "*")).as("keys left on " + node.uri()).isEqualTo(List.of());
        }

        // a managed service's user: everything but CONFIG, on every node (ACL users are per node)
        for (RedisServer node : cluster.nodes()) {
            node.command("ACL", "SETUSER", "no-config", "on", ">pw", "~*", "&*", "+@all", "-config");
        }
        String seed = cluster.uris().get(0).replace("redis://", "redis://no-config:pw@");
        Run noConfig = doctor("--cluster", seed);
        assertThat(noConfig.line("cluster-cover")).as(noConfig.toString()).startsWith("WARN ")
                .contains("CONFIG GET refused");
        assertThat(noConfig.line("cluster-slots")).as(noConfig.toString()).startsWith("OK ");
        assertThat(noConfig.line("persistence")).as(noConfig.toString()).startsWith("WARN ").contains("CONFIG GET refused");
        assertThat(noConfig.exit()).as(noConfig.toString()).isEqualTo(1);

        RedisServer master = cluster.masters().get(0);
        RedisServer replica = cluster.replicasOf(master).get(0);
        String replicaId = RedisClusterGroup.nodeId(replica);
        replica.kill();
        // doctor reads CLUSTER NODES from the node it is given, so wait until that node, not the master, sees the loss
        RedisServer asked = cluster.nodes().get(0);
        await().atMost(Duration.ofSeconds(30)).until(() -> String.valueOf(asked.command("CLUSTER", "NODES")).lines()
                .anyMatch(line -> line.startsWith(replicaId) && line.contains("fail")));
        Run alone = doctor("--cluster", cluster.uris().get(0));
        assertThat(alone.line("cluster-replicas")).as(alone.toString()).startsWith("WARN ")
                .contains("127.0.0.1:" + master.port());

        // the owner forgets one of its slots; asked through it, the cluster has a slot nobody serves
        RedisServer owner = cluster.masterOfSlot(cluster.slotOf("x"));
        owner.command("CLUSTER", "DELSLOTS", Integer.toString(cluster.slotOf("x")));
        Run unserved = doctor("--cluster", owner.uri());
        assertThat(unserved.line("cluster-slots")).as(unserved.toString()).startsWith("FAIL ").contains("16383 of 16384");
        assertThat(unserved.exit()).isEqualTo(2);
    }

    @Test
    void redlockOverDistinctMastersIsOkAndOneServerTwiceFails() {
        RedisServer a = track(RedisServer.start());
        RedisServer b = track(RedisServer.start());
        RedisServer c = track(RedisServer.start());
        Run distinct = doctor("--redlock", a.uri() + "," + b.uri() + "," + c.uri());
        assertThat(distinct.line("redlock-nodes")).as(distinct.toString()).startsWith("OK ").contains("3 distinct");
        assertThat(distinct.line("clock-skew")).as(distinct.toString()).startsWith("OK ");
        assertThat(distinct.line("pubsub")).as(distinct.toString()).startsWith("OK ");
        for (RedisServer node : List.of(a, b, c)) {
            assertThat(node.command("KEYS", "*")).as("keys left on " + node.uri()).isEqualTo(List.of());
        }

        Run twice = doctor("--redlock", a.uri() + "," + b.uri() + ",redis://localhost:" + a.port());
        assertThat(twice.line("redlock-nodes")).as(twice.toString()).startsWith("FAIL ").contains("the same server");
        assertThat(twice.exit()).isEqualTo(2);

        c.kill();
        Run oneDown = doctor("--redlock", a.uri() + "," + b.uri() + "," + c.uri());
        assertThat(oneDown.line("reachable")).as(oneDown.toString()).startsWith("FAIL ").contains(c.uri());
        // what is known: two of three answer, a quorum with none to spare; the third may or may not be a distinct server
        assertThat(oneDown.line("redlock-nodes")).as(oneDown.toString()).startsWith("WARN ")
                .contains("2 of 3 nodes answer", "a quorum of 2", "survives the loss of none more", "not known")
                .doesNotContain("survives the loss of 0");

        b.kill();
        Run minority = doctor("--redlock", a.uri() + "," + b.uri() + "," + c.uri());
        assertThat(minority.line("redlock-nodes")).as(minority.toString()).startsWith("FAIL ")
                .contains("1 of 3 nodes answer, 2 needed");
    }

    @Test
    void aRedlockNodeWhoseClockIsOffWarnsOfClockSkew(@TempDir Path dir) throws Exception {
        RedisServer a = track(RedisServer.start());
        RedisServer b = track(RedisServer.start());
        RedisServer ahead = track(RedisServer.start(clockOffBy(dir, Duration.ofSeconds(30))));
        long serverAheadMs = Long.parseLong(String.valueOf(((List<?>) ahead.command("TIME")).get(0))) * 1000
                - System.currentTimeMillis();
        assertThat(serverAheadMs).as("the wrapper moved the server's clock").isBetween(29_000L, 31_000L);

        Run skewed = doctor("--redlock", a.uri() + "," + b.uri() + "," + ahead.uri());
        assertThat(skewed.line("clock-skew")).as(skewed.toString()).startsWith("WARN ").contains("run NTP");
        assertThat(skewed.line("redlock-nodes")).as(skewed.toString()).startsWith("OK ");
        assertThat(skewed.exit()).isEqualTo(1);
    }

    /**
     * A {@code redis-server} whose wall clock is {@code offset} ahead: a script that runs it with the
     * preloaded library of {@link SkewedClockLibrary}, which moves CLOCK_REALTIME only.
     */
    private static Path clockOffBy(Path dir, Duration offset) throws IOException {
        StringBuilder whyNot = new StringBuilder();
        Path library = SkewedClockLibrary.compile(dir, whyNot).orElseThrow(() -> new AssertionError(whyNot));
        StringBuilder environment = new StringBuilder();
        SkewedClockLibrary.environment(library, offset.toMillis(), 1.0)
                .forEach((name, value) -> environment.append(name).append('=').append(value).append(' '));
        Path wrapper = dir.resolve("redis-server-clock-off");
        // exec keeps the process id, which the harness checks to know its own server answers
        Files.writeString(wrapper, "#!/bin/sh\n" + environment + "exec redis-server \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        return wrapper;
    }
}
