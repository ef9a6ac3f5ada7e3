package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.RedisStore;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.exec.SignalRelay;
import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dlock top} at a real terminal (a tmux pane) and in a pipe, watching locks held by
 * {@code dlock exec} processes and by this test.
 */
class TopTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private static final Duration BOUND = Duration.ofSeconds(60);

    private static LockClient inspector;

    @TempDir
    Path dir;

    private final List<AutoCloseable> leftovers = new ArrayList<>();

    @BeforeAll
    static void connect() {
        inspector = LockClient.builder().store(RedisStore.standalone(redis.server().uri())).clientName("top-test").build();
    }

    @AfterAll
    static void disconnect() {
        inspector.close();
    }

    @AfterEach
    void killLeftovers() throws Exception {
        for (AutoCloseable leftover : leftovers) {
            leftover.close();
        }
    }

    @Test
    void atATerminalShowsEveryHolderLongestHeldFirstAndQuitsOnQGivingTheTerminalBack() throws IOException {
        Tmux.assumeInstalled();
        // the older hold has the later name: the order on screen is by time held, not by name
        Cli.Running older = holdWithExec("live-zeta");
        Cli.Running newer = holdWithExec("live-alpha");
        Tmux tmux = topInTmux("live-*");

        String olderRow = "live-zeta   dlock-exec:sleep on ";
        String newerRow = "live-alpha  dlock-exec:sleep on ";
        await().atMost(BOUND).untilAsserted(() -> assertThat(tmux.screen())
                .contains("2 held locks matching 'live-*'", "(q quits)", "redis://127.0.0.1:" + redis.server().port())
                .contains(olderRow, "pid " + older.process().pid() + ", thread main")
                .contains(newerRow, "pid " + newer.process().pid() + ", thread main"));
        String screen = tmux.screen();
        assertThat(screen.indexOf(olderRow)).as(screen).isLessThan(screen.indexOf(newerRow));
        assertThat(tmux.pane("#{alternate_on}")).as("on the alternate screen").isEqualTo("1");
        assertThat(sttyOf(tmux.pane("#{pane_tty}"))).as("keys read one at a time, unechoed").contains("-icanon", "-echo ");

        tmux.sendKeys("q");

        assertThat(exitCodeOf(tmux)).isEqualTo(ExitCodes.OK);
        assertTerminalGivenBack(tmux);
    }

    @Test
    void atSixtyColumnsTheHolderIsShortenedAndTheFiguresStayWhole() throws IOException {
        Tmux.assumeInstalled();
        holdWithExec("narrow");
        Cli.Running waiter = Cli.start("--redis", redis.server().uri(), "exec", "narrow", "--wait", "60s", "--", "true");
        leftovers.add(waiter);
        await().atMost(BOUND).until(() -> inspector.getLock("narrow").info().waitingClients() == 1);
        Tmux tmux = topInTmux("narrow", 60);

        // name, the holder cut with "...", held for, lease left, and 1 waiting: all of it within 60 columns
        String figure = "(\\d+ ms|\\d+\\.\\d s|\\d+m \\d\\ds)";
        String row = "narrow  dlock-exec:sleep.*\\.\\.\\.  +" + figure + "  +" + figure + "  1";
        await().atMost(BOUND).untilAsserted(() -> assertThat(tmux.screen().lines())
                .anySatisfy(line -> assertThat(line.stripTrailing()).matches(row).hasSizeLessThanOrEqualTo(60))
                .anySatisfy(line -> assertThat(line.stripTrailing()).matches("NAME +HOLDER +HELD FOR  LEASE LEFT  WAITING")));
        tmux.sendKeys("q");
        assertThat(exitCodeOf(tmux)).isEqualTo(ExitCodes.OK);
    }

    @Test
    void ctrlCAtATerminalEndsTheViewAndGivesTheTerminalBack() throws IOException {
        Tmux.assumeInstalled();
        LockHandle held = inspector.getLock("nightly").acquireAsync().join();
        Tmux tmux = topInTmux("nightly");
        await().atMost(BOUND).untilAsserted(() -> assertThat(tmux.screen())
                .contains("1 held lock matching 'nightly'", "nightly  top-test on "));

        tmux.sendKeys("C-c");

        assertThat(exitCodeOf(tmux)).isEqualTo(ExitCodes.SIGNAL_BASE + SignalRelay.SIGINT);
        assertTerminalGivenBack(tmux);
        held.release();
    }

    @Test
    void notAtATerminalEachRefreshIsAPlainBlockLongestHeldFirst() {
        LockHandle older = inspector.getLock("piped-zeta").acquireAsync().join();
        // a second apart: top reads each lock's age on Redis's clock, and on a loaded machine its reads of
        // the two may be far apart (50 ms was not enough at a load of 35)
        await().atMost(BOUND).until(() -> inspector.getLock("piped-zeta").info().heldFor().toMillis() >= 1000);
        LockHandle newer = inspector.getLock("piped-alpha").acquireAsync().join();
        try {
            Cli.Result result = Cli.run(BOUND, "--redis", redis.server().uri(), "top", "piped-*",
                    "--iterations", "2", "--interval", "200ms");

            assertThat(result.exitCode()).as(result.toString()).isZero();
            assertThat(result.stdout()).as(result.toString()).doesNotContain("\033").doesNotContain("q quits");
            List<String> blocks = List.of(result.stdout().split(System.lineSeparator() + System.lineSeparator()));
            assertThat(blocks).as(result.toString()).hasSize(2);
            for (String block : blocks) {
                List<String> lines = block.strip().lines().toList();
                assertThat(lines).as(block).hasSize(4);
                assertThat(lines.get(0)).matches("\\d\\d:\\d\\d:\\d\\d  redis://127\\.0\\.0\\.1:\\d+  2 held locks matching 'piped-\\*'");
                assertThat(lines.get(1)).startsWith("NAME").contains("HOLDER", "HELD FOR", "LEASE LEFT", "WAITING");
                assertThat(lines.get(2)).startsWith("piped-zeta ").contains(", pid " + ProcessHandle.current().pid());
                assertThat(lines.get(3)).startsWith("piped-alpha ");
            }
        } finally {
            older.release();
            newer.release();
        }
    }

    @Test
    void onceWhenNothingIsHeldSaysSo() {
        Cli.Result result = Cli.run(BOUND, "--redis", redis.server().uri(), "top", "--once", "nothing-*");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.stdout().lines().toList()).as(result.toString()).hasSize(2)
                .last().isEqualTo("no held lock matches 'nothing-*'");
    }

    /** A {@code dlock exec NAME -- sleep 3600}, returned once it holds the lock (killed after the test). */
    private Cli.Running holdWithExec(String name) {
        Cli.Running exec = Cli.start("--redis", redis.server().uri(), "exec", name, "--", "sleep", "3600");
        leftovers.add(exec);
        await().atMost(BOUND).until(() -> inspector.getLock(name).isLocked());
        return exec;
    }

    /**
     * {@code dlock top PATTERN} in a 160 (or {@code columns}) x 40 tmux pane, from a script that afterwards writes the
     * terminal's settings to {@code stty-after} and top's exit code to {@code exit-code}. SIGINT
     * is trapped (not ignored, which top would inherit), so that the script goes on after Ctrl-C.
     */
    private Tmux topInTmux(String pattern) throws IOException {
        return topInTmux(pattern, 160);
    }

    private Tmux topInTmux(String pattern, int columns) throws IOException {
        String java = Cli.javaCommand(List.of()).stream().map(TopTest::quoted).collect(Collectors.joining(" "));
        Path script = dir.resolve("top.sh");
        Files.writeString(script, String.join("\n",
                "trap 'true' INT",
                java + " --redis " + redis.server().uri() + " top --interval 500ms " + quoted(pattern),
                "code=$?",
                "stty -a > " + quoted(dir.resolve("stty-after").toString()),
                "echo $code > " + quoted(dir.resolve("exit-code").toString()),
                "exit $code", ""));
        Tmux tmux = Tmux.start(columns, 40, "sh " + quoted(script.toString()));
        leftovers.add(0, tmux);
        return tmux;
    }

    private int exitCodeOf(Tmux tmux) {
        Path exitCode = dir.resolve("exit-code");
        await().atMost(BOUND).until(() -> Files.exists(exitCode) && tmux.pane("#{pane_dead}").equals("1"));
        return Integer.parseInt(readString(exitCode).strip());
    }

    private void assertTerminalGivenBack(Tmux tmux) {
        assertThat(tmux.pane("#{alternate_on}")).as("alternate screen left").isEqualTo("0");
        assertThat(tmux.screen()).as("the view went with the alternate screen").doesNotContain("HOLDER");
        assertThat(readString(dir.resolve("stty-after"))).as("terminal settings after dlock top")
                .containsPattern("(^|\\s)icanon\\b").containsPattern("(^|\\s)echo\\b");
    }

    private static String sttyOf(String tty) {
        try {
            Process stty = new ProcessBuilder("stty", "-a", "-F", tty).redirectErrorStream(true).start();
            return new String(stty.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String quoted(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
