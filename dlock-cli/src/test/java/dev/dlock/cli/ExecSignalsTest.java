package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dlock.cli.store.RedisOptions;
import dev.dlock.testing.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What reaches {@code dlock exec}'s command, and when, where a terminal, a shell or kill(1) signal
 * dlock, each dlock a real process; at a real terminal (script(1)) where the terminal is the point.
 * The command, {@code child.sh}, records each signal it gets in a log and ends on it.
 */
class ExecSignalsTest {

    /**
     * $0 the log; writes "pid PPID", then one line per signal; ends (0) at the first. The traps are set
     * before the pid is written: a signal sent once the pid is there must not find the default action
     * (on a loaded machine it did, and the command died without a word in the log).
     */
    private static final String CHILD = "for s in HUP INT TERM; do trap \"echo $s >> '$0'; exit 0\" $s; done; "
            + "echo \"$$ $PPID\" > \"$0.pid\"; while :; do sleep 0.1; done";

    /** How long a signal may take to reach the command through dlock: generous, for a loaded machine. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        for (Process process : processes) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /** {@code ssh -t host dlock exec ...}, a tmux pane or {@code script -c} running dlock: dlock leads the session. */
    @Test
    void theHangUpOfATerminalWhoseSessionDlockLeadsReachesTheCommandAndFreesTheLock() {
        Path log = dir.resolve("hangup.log");
        Process terminal = atTerminal("exec sh " + dlockScript() + " exec hup-job -- sh -c " + quote(CHILD) + " " + log);
        long[] pids = awaitStarted(log);
        assertThat(ProcessHandle.of(pids[1]).orElseThrow().info().command().orElse("")).contains("java");
        assertThat(redis.server().keys("dlock:{hup-job}")).hasSize(1);

        terminal.destroyForcibly(); // script(1) dies: the terminal hangs up

        await().atMost(BOUND).untilAsserted(() -> assertThat(read(log)).isEqualTo("HUP\n"));
        await().atMost(BOUND).untilAsserted(() ->
                assertThat(redis.server().keys("dlock:{hup-job}")).isEmpty());
        await().atMost(BOUND).until(() -> ProcessHandle.of(pids[1]).isEmpty());
    }

    /**
     * At a terminal, kill -INT of a dlock in the background reaches the command (the terminal sends
     * nothing to a background job); in the foreground it is taken for the terminal's Ctrl-C, which
     * reached the command by itself, and a TERM after that is a first signal, passed on, not the
     * second one that kills the command.
     */
    @Test
    void killOfABackgroundDlockReachesTheCommandAndATermAfterASwallowedIntIsPassedOn() {
        Path background = dir.resolve("background.log");
        Process backgroundTerminal = atTerminal("exec sh -c " + quote("set -m; sh " + dlockScript()
                + " exec bg-job -- sh -c " + quote(CHILD) + " " + background + " & wait"));
        Path foreground = dir.resolve("foreground.log");
        Process foregroundTerminal = atTerminal("exec sh " + dlockScript() + " --verbose exec fg-job -- sh -c "
                + quote(CHILD) + " " + foreground);
        long[] backgroundPids = awaitStarted(background);
        long[] foregroundPids = awaitStarted(foreground);

        signal(backgroundPids[1], "INT");
        await().atMost(BOUND).untilAsserted(() -> assertThat(read(background)).isEqualTo("INT\n"));
        await().atMost(BOUND).until(() -> !backgroundTerminal.isAlive());

        signal(foregroundPids[1], "INT");
        await().atMost(BOUND).until(() -> output(foregroundTerminal)
                .contains("signal 2 reached 'sh' from the terminal: not sent again"));
        signal(foregroundPids[1], "TERM");
        await().atMost(BOUND).untilAsserted(() -> assertThat(read(foreground)).isEqualTo("TERM\n"));
        await().atMost(BOUND).until(() -> !foregroundTerminal.isAlive());
        assertThat(redis.server().keys("dlock:{*")).isEmpty();
    }

    /** flock's command holds the lock's descriptor; dlock's would run on unguarded once the lease ends. */
    @Test
    void killingDlockWithSigkillKillsTheCommandBeforeTheLeaseEnds() {
        Path log = dir.resolve("orphan.log");
        Cli.Running exec = Cli.start("--redis", redis.server().uri(), "exec", "--lease", "30s", "orphan", "--",
                "sh", "-c", CHILD, log.toString());
        processes.add(exec.process());
        long[] pids = awaitStarted(log);
        assertThat(pids[1]).isEqualTo(exec.process().pid());

        signal(exec.process().pid(), "KILL");

        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pids[0]).map(p -> !p.isAlive()).orElse(true));
        long leaseLeftMs = (Long) redis.server().command("PTTL", "dlock:{orphan}");
        assertThat(leaseLeftMs).as("the lease still runs: nobody else can have the lock yet").isPositive();
    }

    /**
     * The command starts with the signal mask and ignored signals a shell started in dlock's place
     * would give it: both started from the same clean state, where the JVM would pass on its own
     * (SIGQUIT blocked, signals 32 and 33 ignored).
     */
    @Test
    void theCommandStartsWithTheSignalsAShellWouldGiveIt() {
        assumeTrue(rtSigaction() != 0, "skipped: rt_sigaction's number is known for x86_64 and aarch64 only");
        List<String> clean = List.of("perl", "-e", "for my $s (1 .. 64) { next if $s == 9 || $s == 19; "
                + "my $default = pack('Q4', 0, 0, 0, 0); syscall(" + rtSigaction() + ", $s, $default, 0, 8) } "
                + "use POSIX (); POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new()); exec { $ARGV[0] } @ARGV");
        String probe = "grep -E 'SigBlk|SigIgn' /proc/self/status";
        Cli.Result underShell = startedFrom(clean, List.of("sh", "-c", probe));
        List<String> wrapper = new ArrayList<>(clean);
        Cli.Result underDlock = Cli.start(wrapper, List.of(), Map.of(), "--redis", redis.server().uri(), "exec", "signals",
                "--", "sh", "-c", probe).await(Duration.ofMinutes(1));
        assertThat(underShell.stdout()).contains("SigBlk:\t0000000000000000").contains("SigIgn:\t0000000000000000");
        assertThat(underDlock.stdout()).as(underDlock.toString()).isEqualTo(underShell.stdout());
    }

    private static int rtSigaction() {
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> 13;
            case "aarch64" -> 134;
            default -> 0;
        };
    }

    private Cli.Result startedFrom(List<String> wrapper, List<String> command) {
        List<String> all = new ArrayList<>(wrapper);
        all.addAll(command);
        try {
            Process process = new ProcessBuilder(all).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Cli.Result(process.waitFor(), out, "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code shellCommand} in script(1)'s terminal, as the session's leader; its output kept in a file. */
    private Process atTerminal(String shellCommand) {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "skipped: script(1) is needed for a real terminal");
        try {
            Path output = Files.createTempFile(dir, "terminal-", ".out");
            // the terminal's processes get HUP, INT and QUIT's default dispositions even when the build
            // runs with them ignored (nohup, a background job): see Cli.withDefaultSignals
            List<String> command = new ArrayList<>(Cli.withDefaultSignals());
            command.addAll(List.of("/usr/bin/script", "-qefc", shellCommand, "/dev/null"));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().put("SHELL", "/bin/sh");
            builder.environment().remove(RedisOptions.URL_ENV);
            builder.environment().putAll(Cli.LOADED_MACHINE);
            Process process = builder.start();
            process.getOutputStream().close();
            processes.add(process);
            outputs.put(process, output);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final Map<Process, Path> outputs = new java.util.HashMap<>();

    private String output(Process terminal) {
        return read(outputs.get(terminal));
    }

    /** A script that execs dlock's JVM with the given arguments, on this class's Redis. */
    private String dlockScript() {
        Path script = dir.resolve("dlock.sh");
        if (!Files.exists(script)) {
            String java = Cli.javaCommand(List.of()).stream().map(ExecSignalsTest::quote).collect(Collectors.joining(" "));
            write(script, "exec " + java + " --redis " + redis.server().uri() + " \"$@\"\n");
        }
        return script.toString();
    }

    /** Waits for child.sh's "pid PPID" line: its pid, and its parent's (dlock's JVM). */
    private static long[] awaitStarted(Path log) {
        Path pidFile = Path.of(log + ".pid");
        await().atMost(Duration.ofMinutes(3)).until(() -> read(pidFile).endsWith("\n"));
        String[] pids = read(pidFile).strip().split(" ");
        return new long[] {Long.parseLong(pids[0]), Long.parseLong(pids[1])};
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            assertThat(kill.waitFor()).as("kill -" + signal + " " + pid).isZero();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
