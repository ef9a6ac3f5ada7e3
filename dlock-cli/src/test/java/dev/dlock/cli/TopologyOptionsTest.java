package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.store.RedisOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --redis}, {@code --redlock} and {@code --cluster}: one of them, each URL checked before
 * anything connects; bad combinations and values exit 2 with one line naming what is wrong.
 */
class TopologyOptionsTest {

    private static final String A = "redis://127.0.0.1:1";
    private static final String B = "redis://127.0.0.1:2";
    private static final String C = "redis://127.0.0.1:3";

    @Test
    void redisAndRedlockExcludeEachOther() {
        assertOneLineUsageError(Cli.run("--redis", A, "--redlock", A + "," + B + "," + C, "status", "job"),
                "--redis and --redlock exclude each other");
    }

    @Test
    void redlockAndClusterExcludeEachOther() {
        assertOneLineUsageError(Cli.run("list", "--redlock", A + "," + B + "," + C, "--cluster", A),
                "--redlock and --cluster exclude each other");
    }

    @Test
    void redisAndClusterExcludeEachOther() {
        assertOneLineUsageError(Cli.run("--cluster", A, "release", "--force", "job", "--redis", B),
                "--redis and --cluster exclude each other");
    }

    @Test
    void redlockNeedsThreeMasters() {
        assertOneLineUsageError(Cli.run("--redlock", A, "--redlock", B, "status", "job"),
                "--redlock needs at least 3 independent masters (an odd number is best), got 2: " + A + "," + B);
    }

    @Test
    void redlockRefusesTheSameServerTwice() {
        assertOneLineUsageError(Cli.run("--redlock", A + "," + B + "," + A, "status", "job"),
                "--redlock: RedisStore.redlock needs distinct servers");
    }

    @Test
    void redlockNamesTheBadUrl() {
        assertOneLineUsageError(Cli.run("--redlock", A + "," + B + ",redis://127.0.0.1:nope", "status", "job"),
                "--redlock: 'redis://127.0.0.1:nope' is not a Redis URL");
        assertOneLineUsageError(Cli.run("--redlock", A + ",," + B, "status", "job"),
                "--redlock: '" + A + ",' is not a Redis URL");
    }

    @Test
    void clusterRefusesSentinelAndSocketUrls() {
        assertOneLineUsageError(Cli.run("--cluster", "redis-sentinel://127.0.0.1:26379?sentinelMasterId=x", "list"),
                "--cluster: 'redis-sentinel://127.0.0.1:26379?sentinelMasterId=x' is not a cluster node's URL");
        assertOneLineUsageError(Cli.run("--cluster", "redis-socket:///tmp/redis.sock", "list"),
                "--cluster: 'redis-socket:///tmp/redis.sock' is not a cluster node's URL");
    }

    @Test
    void clusterRefusesTheSameNodeTwice() {
        assertOneLineUsageError(Cli.run("--cluster", A + "," + B, "--cluster", A, "list"),
                "--cluster: '" + A + "' is given twice");
    }

    @Test
    void redlockOrClusterWinOverRedisUrlFromTheEnvironment() {
        // REDIS_URL is a default for --redis: with --redlock it is not read, so its bad value does not matter
        Cli.Result result = Cli.start(Map.of(RedisOptions.URL_ENV, "not a url"),
                "--redlock", A + "," + B + "," + C, "status", "job").await(Duration.ofSeconds(60));
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(result.stderr()).as(result.toString()).contains("cannot build a Redlock client: only 0 of 3 nodes reachable").doesNotContain("REDIS_URL");
    }

    @Test
    void aSentinelUrlKeepsItsCommasInARedlockList() {
        // dlock's form and Lettuce's own (the master named in the fragment)
        for (String sentinels : List.of("redis-sentinel://127.0.0.1:4,127.0.0.1:5?sentinelMasterId=x",
                "redis-sentinel://127.0.0.1:4,127.0.0.1:5#x")) {
            Cli.Result result = Cli.run("--redlock", sentinels + "," + B + "," + C, "status", "job");
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            // three nodes, the first of them the whole Sentinel URL (the master named as Lettuce names it)
            assertThat(result.stderr()).as(result.toString()).contains("only 0 of 3 nodes reachable",
                    "[redis-sentinel://127.0.0.1:4,127.0.0.1:5?sentinelMasterId=x, " + B + ", " + C + "]");
        }
    }

    @Test
    void theDemoRunsOnOneRedis() {
        assertOneLineUsageError(Cli.run("--redlock", A + "," + B + "," + C, "demo"),
                "--redlock is for exec, status, list, top and release: the demo runs on one Redis");
        assertOneLineUsageError(Cli.run("demo", "--cluster", A),
                "--cluster is for exec, status, list, top and release: the demo runs on one Redis");
    }

    private static void assertOneLineUsageError(Cli.Result result, String message) {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.stderrLines()).as(result.toString()).hasSize(1);
        assertThat(result.stderr()).as(result.toString()).startsWith("dlock: ").contains(message)
                .doesNotContain("Exception", "\tat ");
        assertThat(result.stdout()).isEmpty();
    }
}
