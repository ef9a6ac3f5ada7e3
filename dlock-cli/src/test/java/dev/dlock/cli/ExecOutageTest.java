package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dlock exec} and scripts: the exit codes a script can tell apart, waiting for a Redis that
 * is not there yet, and stopping everything the command started.
 */
class ExecOutageTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable each : open) {
            each.close();
        }
    }

    private Cli.Running start(String... args) {
        List<String> all = new ArrayList<>(List.of("--redis", redis.server().uri()));
        all.addAll(List.of(args));
        Cli.Running process = Cli.start(all.toArray(String[]::new));
        open.add(process);
        return process;
    }

    /** Holds the lock on a thread of this JVM until the returned future is completed. */
    private CompletableFuture<Void> holdElsewhere(String name) {
        LockClient client = LockClient.create(RedisStore.standalone(redis.server().uri()));
        open.add(client);
        DistributedLock lock = client.getLock(name);
        assertThat(lock.tryLock()).isTrue();
        CompletableFuture<Void> done = new CompletableFuture<>();
        open.add(() -> done.complete(null));
        return done;
    }

    @Test
    void busyExits1OrTheConflictExitCode() {
        holdElsewhere("busy");
        Cli.Result plain = Cli.run("--redis", redis.server().uri(), "exec", "--wait", "0", "busy", "--", "true");
        assertThat(plain.exitCode()).as(plain.toString()).isEqualTo(1);
        assertThat(plain.stderr()).contains("lock 'busy' not acquired within 0 ms");

        Cli.Result chosen = Cli.run("--redis", redis.server().uri(), "exec", "--wait", "200ms",
                "--conflict-exit-code", "75", "busy", "--", "true");
        assertThat(chosen.exitCode()).as(chosen.toString()).isEqualTo(75);
        Cli.Result shortFlag = Cli.run("--redis", redis.server().uri(), "exec", "-E", "0", "--wait", "0", "busy",
                "--", "false");
        assertThat(shortFlag.exitCode()).as(shortFlag.toString()).isZero();
    }

    @Test
    void redisUnreachableThroughTheWholeWaitExits69AfterTheWait() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort();
        long start = System.nanoTime();
        Cli.Result result = Cli.run("--redis", url, "exec", "--wait", "2s", "job", "--", "true");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(result.stderrLines()).as(result.toString()).hasSize(1);
        assertThat(result.stderr()).contains("Redis unreachable for the whole wait of 2.0 s",
                "cannot connect to Redis at " + url);
        assertThat(tookMs).as("gave up after the wait, not before").isGreaterThanOrEqualTo(2000);
    }

    /** $DLOCK_COMMAND_TIMEOUT bounds each answer of exec and of the commands that read (a connection's set-up: 3 s at least). */
    @Test
    void theCommandTimeoutComesFromTheEnvironment() {
        redis.server().pause();
        Map<String, String> env = Map.of(DlockCommand.COMMAND_TIMEOUT_ENV, "700ms");
        List<Cli.Result> results = List.of(
                Cli.start(env, "--redis", redis.server().uri(), "exec", "--wait", "0", "job", "--", "true"),
                Cli.start(env, "--redis", redis.server().uri(), "status", "job")).stream()
                .map(run -> run.await(Duration.ofSeconds(60))).toList();
        for (Cli.Result result : results) {
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            // a connect cut short by the timeout before its handshake began says so instead (seen at a load of 45);
            // a connection's set-up gets 3 s at least (LettuceNode.CONNECT_FLOOR), a command the timeout given
            assertThat(result.stderr()).as(result.toString()).containsAnyOf("timed out after 700 millisecond(s)",
                    "Connection initialization timed out after 3 second(s)", "ClosedChannelException");
        }
    }

    @Test
    void execStartedWhileRedisIsDownRunsTheCommandOnceRedisIsBack() throws Exception {
        Path ran = dir.resolve("ran");
        redis.server().kill();
        Cli.Running exec;
        try {
            exec = start("exec", "--wait", "20s", "late-redis", "--", "touch", ran.toString());
            Thread.sleep(3000); // Redis stays down this long
            assertThat(exec.process().isAlive()).as("still waiting for Redis").isTrue();
        } finally {
            redis.server().restart();
        }
        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(ran).exists();
        assertThat(redis.server().keys("*{*")).isEmpty();
    }

    @Test
    void aDoubleForkedGrandchildInTheCommandsGroupIsStoppedOnLoss() throws Exception {
        Path child = dir.resolve("forker");
        // the subshell starts sleep in the background and exits: sleep leaves the process tree
        // (its parent is gone) but stays in the command's process group
        String script = "( sleep 1000 & echo $! > \"$0.grandchild\" ) & wait; touch \"$0.started\"; "
                + "while true; do sleep 0.05; done";
        Cli.Running exec = start("exec", "--lease", "10s", "--grace", "2s", "forker", "--", "sh", "-c", script,
                child.toString());
        await().atMost(Cli.BOUND).until(() -> Files.exists(Path.of(child + ".started")));
        long grandchild = Long.parseLong(Files.readString(Path.of(child + ".grandchild")).strip());
        ProcessHandle sleeper = ProcessHandle.of(grandchild).orElseThrow();
        assertThat(exec.process().descendants().map(ProcessHandle::pid)).as("left the process tree")
                .doesNotContain(grandchild);
        open.add(sleeper::destroyForcibly);

        Cli.Result release = Cli.run("--redis", redis.server().uri(), "release", "--force", "forker");
        assertThat(release.exitCode()).as(release.toString()).isZero();

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        await().atMost(Duration.ofSeconds(10)).until(() -> !sleeper.isAlive());
    }

    @Test
    void aForcedReleaseReachesTheCommandLongBeforeTheNextRenewal() throws Exception {
        Path child = dir.resolve("long-lease");
        String trapTerm = "trap 'date +%s%N > \"$0.term\"; exit 42' TERM; touch \"$0.started\"; "
                + "while true; do sleep 0.05; done";
        Cli.Running exec = start("exec", "--lease", "30s", "long-lease", "--", "sh", "-c", trapTerm, child.toString());
        await().atMost(Cli.BOUND).until(() -> Files.exists(Path.of(child + ".started")));
        // the holder channel is subscribed at connect; wait for it before forcing
        await().atMost(Duration.ofSeconds(10)).until(() ->
                !((List<?>) redis.server().command("PUBSUB", "CHANNELS", "dlock:client:*")).isEmpty());

        // the forced release of a separate client, as 'dlock release --force' sends it (without its JVM start)
        long forcedAt;
        try (LockClient operator = LockClient.create(RedisStore.standalone(redis.server().uri()))) {
            forcedAt = System.currentTimeMillis() * 1_000_000;
            assertThat(operator.getLock("long-lease").forceUnlock()).isTrue();
        }
        Cli.Result result = exec.await(Cli.BOUND);
        long latencyMs = (Long.parseLong(read(child, ".term")) - forcedAt) / 1_000_000;
        System.out.printf("ExecOutageTest: the command got SIGTERM %d ms after the forced release "
                + "(lease 30 s: the next renewal within 10000 ms)%n", latencyMs);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.LOCK_LOST);
        assertThat(result.stderr()).contains("force-released");
        assertThat(latencyMs).as("well before a renewal could have noticed").isLessThan(5000);
    }

    @Test
    void sighupToDlockStopsTheCommandAndReleasesTheLock() {
        Path child = dir.resolve("hup");
        String trapHup = "trap 'echo HUP > \"$0.signal\"; exit 44' HUP; touch \"$0.started\"; "
                + "while true; do sleep 0.05; done";
        // with SIGHUP's default disposition even when the build runs under nohup (see Cli.withDefaultSignals)
        Cli.Running exec = Cli.start(Cli.withDefaultSignals(), List.of(), Map.of(), "--redis", redis.server().uri(),
                "exec", "hangup", "--", "sh", "-c", trapHup, child.toString());
        open.add(exec);
        await().atMost(Cli.BOUND).until(() -> Files.exists(Path.of(child + ".started")));

        Cli.signal(exec.process(), "HUP");

        Cli.Result result = exec.await(Cli.BOUND);
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(44);
        assertThat(read(child, ".signal")).isEqualTo("HUP");
        assertThat(redis.server().keys("*{*")).as("released").isEmpty();
    }

    private static String read(Path base, String suffix) {
        try {
            return Files.readString(Path.of(base + suffix)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
