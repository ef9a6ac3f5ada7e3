package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.cli.doctor.DoctorCommand;
import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code dlock doctor} against real servers, each configured the way one of its lines warns or fails
 * about; a server set up as the docs recommend is all OK.
 */
class DoctorTest {

    /** What the docs recommend: an append-only file synced at every write. */
    static final String[] DURABLE = {"--appendonly", "yes", "--appendfsync", "always"};

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RedisServer server(String... args) {
        RedisServer server = RedisServer.start(args);
        open.add(server);
        return server;
    }

    record Run(int exit, String out, String err) {
        /** The line of the check, on the node when given: {@code OK    server   redis://... finding}. */
        String line(String check) {
            return Arrays.stream(out.split("\n")).filter(line -> line.length() > 6
                            && line.substring(6).startsWith(check + " "))
                    .findFirst().orElseThrow(() -> new AssertionError("no line '" + check + "' in:\n" + this));
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n" + out + err;
        }
    }

    /** The command in this JVM, as Main runs it. */
    static Run doctor(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine(false, List.of(DoctorCommand.class));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("doctor"));
        all.addAll(List.of(args));
        int exit = cli.execute(all.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void aDurableServerOfItsOwnIsAllOk() {
        RedisServer redis = server(DURABLE);
        Run run = doctor("--redis", redis.uri());
        assertAllOkButTheLatency(run);
        for (String check : List.of("server", "role", "persistence", "eviction", "replicas", "wait", "keys", "acl",
                "pubsub")) {
            assertThat(run.line(check)).as(run.toString()).startsWith("OK ");
        }
        assertThat(run.line("server")).contains("Redis 7.");
        assertThat(run.line("pubsub")).contains("after its release");
    }

    @Test
    void theDoctorLeavesNoKeyBehindOnAFreshServer() {
        RedisServer redis = server(DURABLE);
        Run run = doctor("--redis", redis.uri());
        assertThat(run.exit()).as(run.toString()).isZero();
        // docs/cli.md: its locks are released at once and its probe key deleted; its grants raise no token floor
        assertThat(redis.command("KEYS", "*")).as(run.toString()).isEqualTo(List.of());
    }

    @Test
    void valkeyIsNamedWithItsOwnVersion() {
        RedisServer valkey = RedisServer.start(Path.of("valkey-server"), DURABLE);
        open.add(valkey);
        Run run = doctor("--redis", valkey.uri());
        assertThat(run.line("server")).as(run.toString()).startsWith("OK ").contains("Valkey 8.0");
        assertAllOkButTheLatency(run);
    }

    /**
     * Every line OK, and exit 0; but the latency line measures this machine as much as the server, and
     * a loaded machine's round trips are slow (p99 188 ms at a load of 45): a WARN there, and exit 1.
     */
    private static void assertAllOkButTheLatency(Run run) {
        List<String> notOk = run.out().lines().filter(line -> !line.startsWith("OK "))
                .filter(line -> !line.startsWith("WARN  latency ")).toList();
        assertThat(notOk).as(run.toString()).isEmpty();
        assertThat(run.exit()).as(run.toString()).isEqualTo(run.line("latency").startsWith("WARN ") ? 1 : 0);
    }

    @Test
    void aRedisOlderThanSevenFailsTheServerLine(@TempDir Path dir) throws IOException {
        Assumptions.assumeTrue(List.of("amd64", "x86_64").contains(System.getProperty("os.arch")),
                "the Redis 6.2.7 binary at hand is for Linux on x86-64");
        Path redis6 = dir.resolve("redis-server-6");
        try (ZipFile jar = new ZipFile(Path.of("target", "redis-6", "embedded-redis-6.jar").toFile())) {
            Files.copy(jar.getInputStream(jar.getEntry("redis-server-6.2.7-linux-amd64")), redis6);
        }
        Files.setPosixFilePermissions(redis6, PosixFilePermissions.fromString("rwx------"));
        RedisServer old = RedisServer.start(redis6, DURABLE);
        open.add(old);
        Run run = doctor("--redis", old.uri());
        assertThat(run.line("server")).as(run.toString()).startsWith("FAIL ").contains("Redis 6.2.7", "7.0 or newer");
        assertThat(run.exit()).as(run.toString()).isEqualTo(2);
    }

    static Stream<Arguments> misconfigured() {
        return Stream.of(
                Arguments.of(new String[] {}, "persistence", "WARN", "neither AOF nor RDB", 1),
                Arguments.of(new String[] {"--appendonly", "yes", "--appendfsync", "everysec"}, "persistence", "WARN",
                        "appendfsync everysec", 1),
                Arguments.of(new String[] {"--save", "900 1"}, "persistence", "WARN", "RDB snapshots only", 1),
                Arguments.of(concat(DURABLE, "--maxmemory", "100mb", "--maxmemory-policy", "volatile-lru"), "eviction",
                        "FAIL", "volatile-lru", 2),
                Arguments.of(concat(DURABLE, "--rename-command", "CONFIG", ""), "eviction", "WARN", "CONFIG GET refused", 1),
                Arguments.of(concat(DURABLE, "--rename-command", "WAIT", ""), "wait", "WARN", "WAIT refused", 1),
                Arguments.of(concat(DURABLE, "--rename-command", "EVALSHA", ""), "acl", "FAIL", "refuses EVALSHA", 2));
    }

    private static String[] concat(String[] first, String... more) {
        return Stream.concat(Arrays.stream(first), Arrays.stream(more)).toArray(String[]::new);
    }

    @ParameterizedTest(name = "{1} {2}: {3}")
    @MethodSource("misconfigured")
    void aMisconfiguredServerGetsItsLine(String[] args, String check, String status, String finding, int exit) {
        RedisServer redis = server(args);
        Run run = doctor("--redis", redis.uri());
        assertThat(run.line(check)).as(run.toString()).startsWith(status + " ").contains(finding);
        assertThat(run.exit()).as(run.toString()).isEqualTo(exit);
    }

    @Test
    void aServerKeptBusyWhileTheDoctorMeasuresWarnsOfLatency() throws Exception {
        RedisServer redis = server(concat(DURABLE, "--enable-debug-command", "yes"));
        AtomicBoolean measuring = new AtomicBoolean(true);
        AtomicInteger blocks = new AtomicInteger();
        RedisClient client = RedisClient.create(redis.uri());
        open.add(client::shutdown);
        StatefulRedisConnection<String, String> blocker = client.connect();
        // Another client blocks the server (single-threaded) for 150 ms at a time, so the doctor's PINGs
        // queue behind it as behind an overloaded server or a slow network. It blocks from the start,
        // block after block, until the server has answered the doctor's 50 PINGs: waiting for the
        // PINGs to begin first lost the race on a busy machine (they take a millisecond). INFO and
        // DEBUG SLEEP go in one write, so the count INFO gives is the one the block began at.
        CompletableFuture<Void> busy = CompletableFuture.runAsync(() -> {
            blocker.setAutoFlushCommands(false);
            while (measuring.get()) {
                RedisFuture<String> stats = blocker.async().info("commandstats");
                RedisFuture<String> slept = blocker.async().dispatch(CommandType.DEBUG,
                        new StatusOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add("0.15"));
                blocker.flushCommands();
                String before = stats.toCompletableFuture().join();
                slept.toCompletableFuture().join();
                if (calls(before, "ping") >= 50) {
                    break;
                }
                blocks.incrementAndGet();
            }
        }, runnable -> new Thread(runnable, "busy-server").start());
        Run run;
        try {
            run = doctor("--redis", redis.uri());
        } finally {
            measuring.set(false);
            busy.get(5, TimeUnit.SECONDS);
        }
        assertThat(run.line("latency")).as(blocks + " blocks of 150 ms\n" + run).startsWith("WARN ")
                .contains("slow for a lock");
        assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    }

    /** How many times a command ran, from INFO commandstats. */
    private static long calls(String commandStats, String command) {
        Matcher calls = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(commandStats);
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    @Test
    void aReplicaGivenAsTheServerFailsItsRole() {
        RedisServer master = server(DURABLE);
        RedisServer replica = server(concat(DURABLE, "--replicaof", master.host(), Integer.toString(master.port())));
        Run run = doctor("--redis", replica.uri());
        assertThat(run.line("role")).as(run.toString()).startsWith("FAIL ").contains("a replica");
        assertThat(run.exit()).isEqualTo(2);
    }

    @Test
    void replicasInStepAreOkAndAStalledOneIsAWarning() {
        RedisServer master = server(concat(DURABLE, "--repl-diskless-sync-delay", "0"));
        RedisServer replica = server("--replicaof", master.host(), Integer.toString(master.port()));
        await().atMost(10, TimeUnit.SECONDS).until(() -> String.valueOf(master.command("INFO", "replication"))
                .contains("state=online"));
        // the master streams writes to a diskless-synced replica once its first acknowledgement came
        await().atMost(10, TimeUnit.SECONDS).until(() -> {
            master.command("SET", "probe", "1");
            return Long.valueOf(1).equals(master.command("WAIT", "1", "200"));
        });
        master.command("DEL", "probe");
        Run inStep = doctor("--redis", master.uri());
        assertThat(inStep.line("replicas")).as(inStep.toString()).startsWith("OK ").contains("1 replica(s) in step");
        assertThat(inStep.line("wait")).as(inStep.toString()).startsWith("OK ").contains("costs about");

        replica.pause();
        // the replica acknowledges every second: a lag of 2 s means it has stopped
        await().atMost(10, TimeUnit.SECONDS).until(() -> String.valueOf(master.command("INFO", "replication"))
                .matches("(?s).*slave0:[^\\r\\n]*lag=([2-9]|\\d\\d).*"));
        Run stalled = doctor("--redis", master.uri());
        assertThat(stalled.line("replicas")).as(stalled.toString()).startsWith("WARN ").contains("behind");
        assertThat(stalled.line("wait")).as(stalled.toString()).startsWith("WARN ").contains("only 0 of 1");
        replica.resume();
    }

    @Test
    void anUnreachableServerFails() {
        RedisServer gone = server();
        String uri = gone.uri();
        gone.close();
        Run run = doctor("--redis", uri);
        assertThat(run.line("reachable")).as(run.toString()).startsWith("FAIL ");
        assertThat(run.exit()).isEqualTo(2);
    }

    @Test
    void theJsonHasEveryCheckAndTheExitCode() throws Exception {
        RedisServer redis = server();
        Run run = doctor("--redis", redis.uri(), "--json");
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out());
        assertThat(json.get("exit").asInt()).isEqualTo(1).isEqualTo(run.exit());
        assertThat(json.get("checks")).anySatisfy(check -> {
            assertThat(check.get("check").asText()).isEqualTo("persistence");
            assertThat(check.get("status").asText()).isEqualTo("WARN");
            assertThat(check.get("node").asText()).isEqualTo(redis.uri());
        });
    }

    /** The documented ACL rule (docs/deployments.md) with the doctor's own extras, minus one permission. */
    private static void aclUser(RedisServer server, String... changes) {
        try {
            String rule = Files.readAllLines(Path.of("..", "docs", "deployments.md")).stream().map(String::trim)
                    .filter(text -> text.startsWith("ACL SETUSER dlock ")).findFirst().orElseThrow();
            List<String> args = new ArrayList<>(Arrays.asList(rule.replace(">CHANGE-ME", ">pw").split("\\s+")));
            args.addAll(List.of("+info", "+config|get"));
            args.addAll(List.of(changes));
            assertThat(server.command(args.toArray(String[]::new))).isEqualTo("OK");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theDocumentedAclPassesAndAMissingPermissionFailsTheAclOrPubsubLine() {
        RedisServer redis = server(DURABLE);
        String asUser = "redis://dlock:pw@" + redis.host() + ":" + redis.port();
        aclUser(redis);
        Run allowed = doctor("--redis", asUser);
        assertAllOkButTheLatency(allowed);

        aclUser(redis, "-hset");
        Run noHset = doctor("--redis", asUser);
        assertThat(noHset.line("acl")).as(noHset.toString()).startsWith("FAIL ").contains("NOPERM", "HSET");
        assertThat(noHset.exit()).isEqualTo(2);

        aclUser(redis, "+hset", "-scan");
        Run noScan = doctor("--redis", asUser);
        assertThat(noScan.line("keys")).as(noScan.toString()).startsWith("WARN ").contains("SCAN refused");
        assertThat(noScan.line("acl")).as(noScan.toString()).startsWith("FAIL ").contains("inspection", "NOPERM");

        aclUser(redis, "+scan", "-subscribe");
        Run noSubscribe = doctor("--redis", asUser);
        assertThat(noSubscribe.line("acl")).as(noSubscribe.toString()).startsWith("OK ");
        assertThat(noSubscribe.line("pubsub")).as(noSubscribe.toString()).startsWith("FAIL ");
    }
}
