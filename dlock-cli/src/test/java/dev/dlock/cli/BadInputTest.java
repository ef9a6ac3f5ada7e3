package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.common.ExitCodes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every kind of bad input: exit 2 and one line on stderr, with a stack trace only under --verbose. */
class BadInputTest {

    @Test
    void unknownFlag() {
        assertOneLineUsageError(Cli.run("exec", "--bogus", "job", "--", "true"), "Unknown option: '--bogus'");
    }

    @Test
    void mistypedCommandSuggestsTheNearestOne() {
        assertOneLineUsageError(Cli.run("stauts", "job"), "dlock: unknown command 'stauts': did you mean status? "
                + "(see 'dlock --help')");
    }

    @Test
    void durationWithAnUnknownUnit() {
        assertOneLineUsageError(Cli.run("exec", "--wait", "10x", "job", "--", "true"), "'10x' is not a duration");
    }

    @Test
    void negativeDuration() {
        assertOneLineUsageError(Cli.run("exec", "--lease", "-5s", "job", "--", "true"), "'-5s' is negative");
    }

    @Test
    void durationWithoutUnit() {
        assertOneLineUsageError(Cli.run("exec", "--grace", "10", "job", "--", "true"), "'10' has no unit");
    }

    @Test
    void leaseBelowTheWatchdogMinimum() {
        assertOneLineUsageError(Cli.run("exec", "--lease", "50ms", "job", "--", "true"), "--lease: at least 100ms");
    }

    @Test
    void missingCommandAfterDoubleDash() {
        assertOneLineUsageError(Cli.run("exec", "job", "--"), "missing command after '--'");
    }

    @Test
    void commandWithoutDoubleDash() {
        assertOneLineUsageError(Cli.run("exec", "job", "true"), "exec needs '--' before the command");
    }

    @Test
    void lockKindOptionsThatExcludeEachOther() {
        assertOneLineUsageError(Cli.run("exec", "--permits", "2", "--shared", "job", "--", "true"),
                "--permits and --shared exclude each other");
        assertOneLineUsageError(Cli.run("exec", "--exclusive", "--fair", "job", "--", "true"),
                "--exclusive and --fair exclude each other");
    }

    @Test
    void permitCountOutOfRange() {
        assertOneLineUsageError(Cli.run("exec", "--permits", "0", "job", "--", "true"), "--permits: from 1 to 10000, got 0");
    }

    @Test
    void unreachableRedisHasItsOwnExitCode() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort();
        assertOneLineError(Cli.run("--redis", url, "status", "job"), ExitCodes.REDIS_UNAVAILABLE,
                "cannot connect to Redis at " + url);
    }

    @Test
    void commandTimeoutFromTheEnvironmentThatIsNotADuration() throws IOException {
        Cli.Result result = Cli.start(Map.of(DlockCommand.COMMAND_TIMEOUT_ENV, "soon"), "--redis",
                "redis://127.0.0.1:" + closedPort(), "status", "job").await(java.time.Duration.ofSeconds(60));
        assertOneLineUsageError(result, "DLOCK_COMMAND_TIMEOUT: 'soon' is not a duration");
    }

    @Test
    void conflictExitCodeOutOfRange() {
        assertOneLineUsageError(Cli.run("exec", "--conflict-exit-code", "300", "job", "--", "true"),
                "--conflict-exit-code: an exit code from 0 to 255, got 300");
    }

    @Test
    void urlThatIsNotARedisUrl() {
        assertOneLineUsageError(Cli.run("--redis", "localhost:6379", "status", "job"),
                "--redis: 'localhost:6379' is not a Redis URL");
    }

    @Test
    void malformedRedisUrl() {
        assertOneLineUsageError(Cli.run("--redis", "redis://127.0.0.1:notaport", "list"),
                "--redis: 'redis://127.0.0.1:notaport' is not a Redis URL: no host, or a port that is not a number");
    }

    @Test
    void malformedRedisUrlFromTheEnvironment() {
        Cli.Result result = Cli.start(Map.of("REDIS_URL", "http://example"), "status", "job")
                .await(java.time.Duration.ofSeconds(60));
        assertOneLineUsageError(result, "REDIS_URL: 'http://example' is not a Redis URL");
    }

    @Test
    void demoWithNoStock() {
        assertOneLineUsageError(Cli.run("demo", "--stock", "0"), "--stock: between 1 and");
    }

    @Test
    void unknownMode() {
        assertOneLineUsageError(Cli.run("demo", "--mode", "maybe"), "Invalid value for option '--mode'");
    }

    @Test
    void metricsPortOutOfRange() {
        assertOneLineUsageError(Cli.run("demo", "--metrics-port", "65536"),
                "--metrics-port: a port from 0 to 65535 (0: any free one), got 65536");
        assertOneLineUsageError(Cli.run("demo", "--metrics-port", "-1"),
                "--metrics-port: a port from 0 to 65535 (0: any free one), got -1");
        assertOneLineUsageError(Cli.run("demo", "--metrics-port", "http"),
                "Invalid value for option '--metrics-port': 'http' is not an int");
    }

    @Test
    void metricsPortInUseIsNamedAndNothingIsRun() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            assertOneLineUsageError(Cli.run("demo", "--metrics-port", Integer.toString(port)),
                    "--metrics-port " + port + ": cannot listen on 127.0.0.1:" + port + ": Address already in use");
        }
    }

    @Test
    void metricsLingerWithoutAPort() {
        assertOneLineUsageError(Cli.run("demo", "--metrics-linger"), "--metrics-linger needs --metrics-port");
    }

    @Test
    void topIntervalBelowTheMinimum() {
        assertOneLineUsageError(Cli.run("top", "--interval", "50ms"), "--interval 50 ms is too short: at least 100ms");
    }

    @Test
    void topIterationsThatAreNotACount() {
        assertOneLineUsageError(Cli.run("top", "--iterations", "0"), "--iterations 0 is not a count of refreshes");
        assertOneLineUsageError(Cli.run("top", "--once", "--iterations", "3"),
                "--once and --iterations 3 contradict each other");
    }

    @Test
    void topWithRedisUnreachable() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort();
        assertOneLineError(Cli.run("--redis", url, "watch", "--once"), ExitCodes.REDIS_UNAVAILABLE,
                "cannot connect to Redis at " + url);
    }

    @Test
    void verboseShowsTheStackTrace() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort();
        Cli.Result result = Cli.run("--verbose", "--redis", url, "status", "job");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(result.stderrLines().get(0)).startsWith("dlock: cannot connect to Redis at " + url);
        assertThat(result.stderr()).contains("LockBackendException", "\tat ");
    }

    private static void assertOneLineUsageError(Cli.Result result, String message) {
        assertOneLineError(result, ExitCodes.USAGE, message);
    }

    private static void assertOneLineError(Cli.Result result, int exitCode, String message) {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(exitCode);
        assertThat(result.stderrLines()).as(result.toString()).hasSize(1);
        assertThat(result.stderr()).as(result.toString()).startsWith("dlock: ").contains(message)
                .doesNotContain("Exception", "\tat ");
        assertThat(result.stdout()).isEmpty();
    }

    /** A port nothing listens on: bound once, then freed. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
