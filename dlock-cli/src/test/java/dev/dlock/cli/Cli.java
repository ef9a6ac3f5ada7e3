package dev.dlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.cli.store.PostgresOptions;
import dev.dlock.cli.store.RedisOptions;
import dev.dlock.testing.StartupArchive;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the dlock command as a real process, as a user would: {@code java -cp <test class path>
 * dev.dlock.cli.Main ARGS}, with stdout and stderr kept apart. REDIS_URL and DLOCK_POSTGRES_URL are
 * removed from the child's environment unless a test sets them, so only the options decide.
 */
final class Cli {

    /**
     * What every dlock process of the tests finds in its environment (a test's own values win): a
     * command timeout for a loaded machine. With the CLI's 3 s a connect timed out when twenty JVMs
     * started at once at a load of about 20 on 2 cores. {@code exec} takes at most a quarter of its lease.
     */
    static final Map<String, String> LOADED_MACHINE = Map.of(DlockCommand.COMMAND_TIMEOUT_ENV, "10s");

    /**
     * How long a dlock process may take to start, run a short command and end: only a bound against a
     * hang, as a JVM's start alone took over a minute at a load of 35 on 2 cores.
     */
    static final Duration BOUND = Duration.ofMinutes(3);

    private Cli() {
    }

    /** Runs to the end; fails the test when it takes longer than {@code timeout}. */
    static Result run(Duration timeout, String... args) {
        return start(Map.of(), args).await(timeout);
    }

    static Result run(String... args) {
        return run(BOUND, args);
    }

    static Running start(String... args) {
        return start(Map.of(), args);
    }

    static Running start(Map<String, String> env, String... args) {
        return start(List.of(), List.of(), env, args);
    }

    /**
     * With {@code wrapper} in front of the java command (e.g. {@code unshare ... sh -c 'exec "$@"'}:
     * it must exec java in the end, so that the process is dlock's JVM) and {@code jvmOptions}
     * (e.g. {@code -Djava.io.tmpdir=...}) given to that JVM.
     */
    static Running start(List<String> wrapper, List<String> jvmOptions, Map<String, String> env, String... args) {
        return start(ProcessBuilder.Redirect.from(new File("/dev/null")), wrapper, jvmOptions, env, args);
    }

    /** With a pipe for stdin instead of /dev/null: write to {@code process().getOutputStream()}. */
    static Running startWithInput(String... args) {
        return start(ProcessBuilder.Redirect.PIPE, List.of(), List.of(), Map.of(), args);
    }

    private static Running start(ProcessBuilder.Redirect stdin, List<String> wrapper, List<String> jvmOptions,
                                 Map<String, String> env, String... args) {
        StartupArchive.Launch launch = StartupArchive.on(java(), System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(javaCommand(jvmOptions, launch.options()));
        command.addAll(List.of(args));
        try {
            Path out = Files.createTempFile("dlock-cli-out-", ".txt");
            Path err = Files.createTempFile("dlock-cli-err-", ".txt");
            out.toFile().deleteOnExit();
            err.toFile().deleteOnExit();
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(stdin)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().remove(RedisOptions.URL_ENV);
            builder.environment().remove(PostgresOptions.URL_ENV);
            builder.environment().putAll(LOADED_MACHINE);
            builder.environment().putAll(env);
            Process process = builder.start();
            launch.started(process);
            return new Running(process, out, err, String.join(" ", args));
        } catch (IOException e) {
            launch.notStarted();
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A wrapper for {@link #start(List, List, Map, String...)}, for tests that send dlock (or a
     * terminal it runs at) SIGHUP, SIGINT or SIGQUIT. When this JVM runs with one of them ignored
     * (a shell script's background jobs ignore SIGINT and SIGQUIT, e.g. {@code ./mvnw verify &};
     * {@code nohup ./mvnw verify} ignores SIGHUP), dlock would inherit that: a JVM started with a
     * signal ignored keeps it ignored (Signal.handle installs nothing), and so does a shell's trap
     * in the command, as nohup promises. The wrapper, {@code env --default-signal=...}, gives the
     * ignored ones their default back. Empty when none is ignored, or not on Linux.
     */
    static List<String> withDefaultSignals() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16);
                    List<String> names = new ArrayList<>();
                    // signal n is bit n - 1: HUP 1, INT 2, QUIT 3
                    String[] byNumber = {null, "HUP", "INT", "QUIT"};
                    for (int number = 1; number <= 3; number++) {
                        if ((ignored & (1L << (number - 1))) != 0) {
                            names.add(byNumber[number]);
                        }
                    }
                    return names.isEmpty() ? List.of() : List.of("env", "--default-signal=" + String.join(",", names));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: leave it as it is
        }
        return List.of();
    }

    /**
     * The dlock command up to its arguments: {@code java [jvmOptions] -cp <test class path> dev.dlock.cli.Main},
     * with the {@linkplain StartupArchive startup archive} when one is written, for a command run in a shell.
     */
    static List<String> javaCommand(List<String> jvmOptions) {
        return javaCommand(jvmOptions, StartupArchive.ifWritten(java(), System.getProperty("java.class.path")));
    }

    private static List<String> javaCommand(List<String> jvmOptions, List<String> classPathOptions) {
        List<String> command = new ArrayList<>();
        command.add(java().toString());
        // short-lived JVMs on a 2-core machine: skip the optimizing compiler, use the smallest GC
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.addAll(jvmOptions);
        command.addAll(classPathOptions);
        command.add(Main.class.getName());
        return command;
    }

    private static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** A dlock process still running (or not). {@link #close()} kills it. */
    static final class Running implements AutoCloseable {
        private final Process process;
        private final Path out;
        private final Path err;
        private final String args;

        private Running(Process process, Path out, Path err, String args) {
            this.process = process;
            this.out = out;
            this.err = err;
            this.args = args;
        }

        Process process() {
            return process;
        }

        String stdout() {
            return read(out);
        }

        String stderr() {
            return read(err);
        }

        Result await(Duration timeout) {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    throw new AssertionError("'dlock " + args + "' still running after " + timeout
                            + "\nstdout:\n" + stdout() + "\nstderr:\n" + stderr());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return new Result(process.exitValue(), stdout(), stderr());
        }

        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }

        private static String read(Path file) {
            try {
                return Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    record Result(int exitCode, String stdout, String stderr) {

        /** stderr split in lines, without the empty last one. */
        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** kill -SIGNAL pid: the JDK only sends SIGTERM and SIGKILL. */
    static void signal(Process process, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(kill.exitValue()).as("kill -" + signal).isZero();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
