package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The flash-sale demo, run as the user runs it, its numbers checked against what Redis recorded. */
class DemoTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static final Pattern ROW = Pattern.compile(
            "^(nolock|lock)\\s+([\\d,]+)\\s+([\\d,]+)\\s+([\\d,]+)\\s+.*$", Pattern.MULTILINE);

    /**
     * Runs the demo in a network namespace of its own (unshare(1); unprivileged through a user
     * namespace), with only a loopback interface: nothing answers on localhost:6379 there, however
     * the machine is set up, so the demo must fall back to a redis-server of its own. The demo's
     * JVM is exec'd, so the process the test holds is the demo.
     */
    private static final List<String> WITHOUT_LOCAL_REDIS = List.of("unshare", "--user", "--map-root-user",
            "--net", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh");

    private static final Pattern OWN_REDIS = Pattern.compile(
            "redis: started redis-server \\S+ \\((?:from \\S+redis-server|bundled)\\) on 127\\.0\\.0\\.1:(\\d+) "
                    + "\\(stopped on exit\\)");

    @RepeatedTest(3)
    void lockModeSellsExactlyTheStock() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "demo", "flash-sale", "--mode", "lock",
                "--stock", "7", "--buyers", "300", "--clients", "3", "--threads", "2", "--keep-data");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        Row lock = row(result, "lock");
        assertThat(lock.sold()).isEqualTo(7);
        assertThat(lock.oversold()).isZero();
        assertThat(lock.served()).isEqualTo(300);
        assertThat(ordersRecorded("lock")).as("orders in Redis").isEqualTo(7);
        assertThat(result.stdout()).contains("lock:   sold 7 of 7 phones, exactly the stock");
    }

    @Test
    void nolockModeReportsTheOversellRedisRecorded() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "demo", "--mode", "nolock",
                "--stock", "5", "--buyers", "400", "--keep-data");

        assertThat(result.exitCode()).as("an oversell without the lock is the demo's point, not a failure: "
                + result).isZero();
        Row nolock = row(result, "nolock");
        long recorded = ordersRecorded("nolock");
        assertThat(nolock.sold()).isEqualTo(recorded);
        assertThat(nolock.oversold()).isEqualTo(Math.max(0, recorded - 5));
        assertThat(nolock.served()).isEqualTo(400);
        assertThat(result.stdout()).as("no lock, no lock waits").doesNotContain("lock waits");
    }

    @Test
    void bothModesSayWhichRedisTheyUsedAndLeaveNothingBehind() {
        Cli.Result result = Cli.run("--redis", redis.server().uri(), "demo", "--buyers", "300");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().findFirst()).hasValue("redis: using --redis " + redis.server().uri());
        assertThat(result.stdout()).contains("mode", "sold", "oversold", "buyers served", "elapsed",
                "purchases/s", "lock wait p50", "lock wait p99");
        assertThat(row(result, "nolock").served()).isEqualTo(300);
        assertThat(row(result, "lock").sold()).isEqualTo(10);
        assertThat(result.stdout()).contains("lock waits, from the meter dlock.acquire.wait");
        assertThat(result.stdout()).as("one acquisition per buyer of the lock mode, none in the nolock mode")
                .containsPattern("(?m)^  reentrant\\s+acquired\\s+300\\s");
        assertThat(result.stderr()).isEmpty();
        // the token floor is the one key a lock leaves, and it expires (docs/design.md)
        assertThat(redis.server().keys("*")).as("stock, orders and locks cleaned up")
                .allMatch(key -> key.endsWith("token-floor"));
    }

    @Test
    void redisUrlFromTheEnvironmentIsTheRedisUsedAnnouncedAndWrittenTo() {
        String uri = redis.server().uri();
        Cli.Result result = Cli.start(Map.of("REDIS_URL", uri), "demo", "--mode", "lock", "--stock", "5",
                "--buyers", "200", "--keep-data").await(Duration.ofSeconds(60));

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().findFirst()).hasValue("redis: using REDIS_URL " + uri);
        Row lock = row(result, "lock");
        assertThat(lock.sold()).isEqualTo(5);
        assertThat(lock.oversold()).isZero();
        assertThat(lock.served()).isEqualTo(200);
        List<String> stock = redis.server().keys("dlock-demo:*:lock:stock");
        assertThat(stock).as("the stock was kept in the REDIS_URL server").hasSize(1);
        assertThat(redis.server().command("GET", stock.get(0))).isEqualTo("0");
        assertThat(ordersRecorded("lock")).as("orders in the REDIS_URL server").isEqualTo(5);
    }

    @Test
    void withNothingOnLocalhost6379ItStartsARedisOfItsOwnSaysSoAndStopsItOnExit(@TempDir Path tmp) {
        assumeNetworkNamespaces();
        Cli.Result result = Cli.start(WITHOUT_LOCAL_REDIS, List.of("-Djava.io.tmpdir=" + tmp), Map.of(),
                "demo", "--mode", "lock", "--stock", "3", "--buyers", "100").await(Duration.ofSeconds(60));

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().findFirst()).hasValueSatisfying(
                first -> assertThat(first).matches(OWN_REDIS));
        Row lock = row(result, "lock");
        assertThat(lock.sold()).isEqualTo(3);
        assertThat(lock.served()).isEqualTo(100);
        // (the next test shows that ownRedisServers finds the demo's redis-server while it runs)
        assertThat(ownRedisServers(tmp)).as("its redis-server, after the demo ended").isEmpty();
        assertThat(ownRedisDirs(tmp)).as("its redis-server's temp directory").isEmpty();
        assertThat(redis.server().keys("*")).as("the test's own server was not used").isEmpty();
    }

    @Test
    void itsOwnRedisIsStoppedAlsoWhenTheDemoIsInterrupted(@TempDir Path tmp) {
        assumeNetworkNamespaces();
        // every purchase pauses 1 s under the lock: a sale of 1,000 units that is still going when
        // interrupted, and all but idle meanwhile
        List<String> wrapper = new ArrayList<>(Cli.withDefaultSignals());
        wrapper.addAll(WITHOUT_LOCAL_REDIS);
        try (Cli.Running demo = Cli.start(wrapper, List.of("-Djava.io.tmpdir=" + tmp), Map.of(),
                "demo", "--mode", "lock", "--stock", "1000", "--buyers", "1000", "--clients", "1", "--threads", "1",
                "--pause", "1s")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> demo.stdout().contains("flash sale:")
                    || !demo.process().isAlive());
            assertThat(demo.process().isAlive()).as(demo.stdout() + demo.stderr()).isTrue();
            assertThat(demo.stdout().lines().findFirst()).hasValueSatisfying(
                    first -> assertThat(first).matches(OWN_REDIS));
            List<ProcessHandle> servers = ownRedisServers(tmp);
            assertThat(servers).as("its redis-server while the sale runs").hasSize(1);
            ProcessHandle server = servers.get(0);
            assertThat(server.parent().map(ProcessHandle::pid)).as("started by the demo")
                    .hasValue(demo.process().pid());

            Cli.signal(demo.process(), "INT"); // Ctrl-C, as far as the JVM can tell

            Cli.Result result = demo.await(Duration.ofSeconds(30));
            assertThat(server.isAlive()).as("redis-server pid " + server.pid() + " after the demo ended: " + result)
                    .isFalse();
            assertThat(ownRedisServers(tmp)).isEmpty();
            assertThat(ownRedisDirs(tmp)).as("its redis-server's temp directory").isEmpty();
        }
    }

    /** Skips a test where unshare(1) cannot give the demo a network namespace of its own. */
    private static void assumeNetworkNamespaces() {
        boolean available;
        try {
            List<String> probe = new ArrayList<>(WITHOUT_LOCAL_REDIS);
            probe.add("true");
            Process process = new ProcessBuilder(probe).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            available = process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
            process.destroyForcibly();
        } catch (IOException e) {
            available = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assumeTrue(available, "unshare --user --net (and ip) needed to hide localhost:6379 from the demo");
    }

    /**
     * The demo's redis-server processes: those named redis-server (in the title Redis gives itself in
     * /proc/PID/cmdline; the executable may be a link, to redis-check-rdb on Debian) running with
     * their working directory (--dir, a temp directory of the demo's) under {@code tmp}, the demo's
     * java.io.tmpdir.
     */
    private static List<ProcessHandle> ownRedisServers(Path tmp) {
        String root = realPath(tmp).toString() + "/";
        return ProcessHandle.allProcesses()
                .filter(p -> proc(p, "cmdline").map(cmdline -> cmdline.contains("redis-server")).orElse(false))
                .filter(p -> proc(p, "cwd").map(dir -> dir.startsWith(root)).orElse(false))
                .toList();
    }

    /** /proc/PID/cmdline, or where the link /proc/PID/cwd points. */
    private static Optional<String> proc(ProcessHandle process, String entry) {
        Path path = Path.of("/proc", Long.toString(process.pid()), entry);
        try {
            return Optional.of(Files.isSymbolicLink(path) ? Files.readSymbolicLink(path).toString()
                    : Files.readString(path).replace('\0', ' '));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty(); // ended meanwhile, or not ours to look at
        }
    }

    private static List<Path> ownRedisDirs(Path tmp) {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(file -> file.getFileName().toString().startsWith("dlock-demo-redis-")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    private static long ordersRecorded(String mode) {
        List<String> keys = redis.server().keys("dlock-demo:*:" + mode + ":orders");
        assertThat(keys).hasSize(1);
        Object length = redis.server().command("LLEN", keys.get(0));
        redis.server().command("DEL", keys.get(0));
        return ((Number) length).longValue();
    }

    /** The table row of {@code mode} in the demo's output. */
    static Row row(Cli.Result result, String mode) {
        Matcher matcher = ROW.matcher(result.stdout());
        while (matcher.find()) {
            if (matcher.group(1).equals(mode)) {
                return new Row(number(matcher.group(2)), number(matcher.group(3)), number(matcher.group(4)));
            }
        }
        throw new AssertionError("no '" + mode + "' row in the table:\n" + result);
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }

    record Row(long sold, long oversold, long served) {
    }
}
