package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServer;
import dev.dlock.testing.RedisServers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The commands on a Redlock of 3 independent masters, named with {@code --redlock} (a
 * comma-separated list and a repeated option together). A forced release deletes every node's copy.
 */
class RedlockCliTest extends TopologyCliContract {

    @RegisterExtension
    static final RedisServers masters = RedisServers.masters(3);

    @Override
    List<String> topology() {
        List<String> uris = masters.uris();
        return List.of("--redlock", uris.get(0) + "," + uris.get(1), "--redlock", uris.get(2));
    }

    @Override
    List<String> names() {
        return List.of("redlock-job");
    }

    @Override
    List<RedisServer> serversOf(String name) {
        return masters.all();
    }

    /**
     * The holder's token is the largest proposal of the quorum that granted first; {@code status}
     * reads every node's copy and shows the largest, which a node that granted after the quorum
     * had decided may have proposed a few microseconds higher.
     */
    @Override
    void assertReportedToken(long reported, long holders) {
        assertThat(reported).as("token reported for the holder's").isGreaterThanOrEqualTo(holders)
                .isLessThan(holders + 1_000_000);
    }

    /** The issue of textual checks: two names of one server with the third node down made a "quorum". */
    @Test
    void twoUrlsOfOneServerAreBadInputEvenWithTheThirdNodeDown() {
        int port = masters.get(0).port();
        masters.get(2).kill();
        Cli.Result exec = Cli.run("--redlock", "redis://127.0.0.1:" + port + ",redis://localhost:" + port + ","
                + masters.get(2).uri(), "exec", "--wait", "2s", "one-server", "--", "true");
        assertThat(exec.exitCode()).as(exec.toString()).isEqualTo(2);
        assertThat(exec.stderr()).startsWith("dlock: --redlock: RedisStore.redlock needs distinct servers: ")
                .contains("localhost:" + port).contains("run_id");
        assertThat(masters.get(0).keys("dlock:{one-server}*")).isEmpty();
    }

    /** As on a Cluster (ClusterCliTest): the node that did not answer is named, what the others hold is printed, exit 69. */
    @Test
    void listWithANodeDownPrintsWhatTheOthersHoldNamesItAndExits69() {
        try (LockClient holder = LockClient.builder().store(RedisStore.redlock(masters.uris().toArray(String[]::new))).build()) {
            assertThat(holder.getLock("listed-job").tryLock()).isTrue();
            masters.get(1).kill();

            Cli.Result list = dlock("list");
            assertThat(list.exitCode()).as(list.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            assertThat(list.stdout()).as(list.toString()).contains("listed-job");
            assertThat(list.stderr()).as(list.toString()).startsWith("dlock: list incomplete: 1 of 3 masters failed ("
                    + masters.get(1).uri() + ": ").contains("the locks of the other 2 are listed");
        }
    }

    @Test
    void forcedReleaseOfALibraryHolderFreesEveryNode() {
        try (LockClient holder = LockClient.builder().store(RedisStore.redlock(masters.uris().toArray(String[]::new)))
                .clientName("redlock-holder").build()) {
            LockHandle held = holder.getLock("settlement").acquireAsync().join();
            // a grant needs a majority; the copies on the other nodes are written in the same round,
            // but may land just after the grant
            for (RedisServer node : masters.all()) {
                await().untilAsserted(() -> assertThat(exists(node, "settlement")).as("copy on %s while held", node).isTrue());
            }

            Cli.Result release = dlock("release", "--force", "settlement");
            assertThat(release.exitCode()).as(release.toString()).isZero();
            assertThat(release.stdout()).contains("released lock 'settlement' (held by redlock-holder on ");
            assertReportedToken(reportedToken(release), held.fencingToken());
            for (RedisServer node : masters.all()) {
                assertThat(exists(node, "settlement")).as("copy on %s after release --force", node).isFalse();
            }
        }
    }
}
