package dev.dlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link RedisServer}'s process is started: one command line (binary, optional config file,
 * the harness defaults, then the caller's arguments) run in one directory, and awaited until the
 * process itself answers {@code PING}. A port taken by someone else is retried on another free port
 * at the first start, and on the same port (for a while) at a restart.
 */
final class RedisLaunch {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration RESTART_BIND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(10);
    private static final int START_PORT_ATTEMPTS = 5;

    /** A process that answers on its port. */
    record Started(int port, Process process) {
    }

    private enum Outcome { READY, PORT_TAKEN, EXITED, TIMED_OUT }

    private final String executable;
    private final Path configFile;
    private final List<String> extraArgs;
    private final Path dir;
    private final RedisLog log;

    /** @param configFile the config file to pass first, or null for none */
    RedisLaunch(String executable, Path configFile, List<String> extraArgs, Path dir) {
        this.executable = executable;
        this.configFile = configFile;
        this.extraArgs = extraArgs;
        this.dir = dir;
        this.log = new RedisLog(dir);
    }

    Path dir() {
        return dir;
    }

    RedisLog log() {
        return log;
    }

    /**
     * Starts the process on a free port, trying up to 5 ports while the chosen one is taken before
     * redis-server binds it.
     *
     * @throws IllegalStateException if it does not answer within about 10 s, exits early, or finds
     *     every port taken; the message contains the tail of its log
     */
    Started onFreePort() {
        IllegalStateException lastBindFailure = null;
        for (int attempt = 0; attempt < START_PORT_ATTEMPTS; attempt++) {
            int port = FreePorts.next();
            long logOffset = log.size();
            Process process = launch(port);
            Outcome result = awaitReady(process, port, logOffset);
            if (result == Outcome.READY) {
                return new Started(port, process);
            }
            ProcessReaper.killAndWait(process);
            if (result == Outcome.PORT_TAKEN) {
                lastBindFailure = log.failure("port " + port + " was taken before redis-server could bind it");
                continue;
            }
            throw log.failure(result == Outcome.TIMED_OUT
                    ? "redis-server on port " + port + " did not answer PING within " + START_TIMEOUT.toSeconds() + " s"
                    : "redis-server on port " + port + " exited with code " + process.exitValue());
        }
        throw lastBindFailure;
    }

    /**
     * Starts the process again on {@code port}, retrying for about 5 s while the port is still held.
     *
     * @throws IllegalStateException if it cannot be started there
     */
    Process restartOn(int port) {
        long deadline = System.nanoTime() + RESTART_BIND_TIMEOUT.toNanos();
        while (true) {
            long logOffset = log.size();
            Process next = launch(port);
            Outcome result = awaitReady(next, port, logOffset);
            if (result == Outcome.READY) {
                return next;
            }
            ProcessReaper.killAndWait(next);
            if (result != Outcome.PORT_TAKEN || System.nanoTime() - deadline >= 0) {
                throw log.failure("could not restart redis-server on port " + port + " (" + result + ")");
            }
            backoff(Duration.ofMillis(100));
        }
    }

    private Process launch(int port) {
        List<String> cmd = new ArrayList<>(List.of(executable));
        if (configFile != null) {
            cmd.add(configFile.toString());
        }
        cmd.addAll(List.of(
                "--port", Integer.toString(port),
                "--bind", RedisServer.HOST,
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--dir", dir.toString(),
                "--logfile", log.file().toString()));
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                // Config errors are printed before the log file is opened; keep them for failure messages.
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.output().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        try {
            // the binary may be one a test has just written (a Redis of another version)
            Process process = ProcessStarts.start(pb);
            ProcessReaper.register(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + executable + " (is it on the PATH?): " + e.getMessage(), e);
        }
    }

    /**
     * Polls until the freshly launched process answers PING. Checks the process id reported by the
     * server, because when our process failed to bind, another Redis that owns the port would answer.
     */
    private Outcome awaitReady(Process process, int port, long logOffset) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String expectedPid = "process_id:" + process.pid();
        while (true) {
            if (!process.isAlive()) {
                // Only this launch's part of the log: earlier attempts in the same dir may have hit a taken port.
                return log.since(logOffset).contains("Address already in use") ? Outcome.PORT_TAKEN : Outcome.EXITED;
            }
            try {
                Object info = Resp.call(RedisServer.HOST, port, PROBE_TIMEOUT, PROBE_TIMEOUT, "INFO", "server");
                if (info instanceof String && ((String) info).contains(expectedPid + "\r\n")) {
                    return Outcome.READY;
                }
                // Someone else answered on this port; our process will fail to bind and exit.
            } catch (UncheckedIOException | RedisReplyException notYet) {
                // not listening yet (or a LOADING error): keep polling
            }
            if (System.nanoTime() - deadline >= 0) {
                return Outcome.TIMED_OUT;
            }
            ProcessSignals.waitOrExit(process, POLL_INTERVAL);
        }
    }

    private static void backoff(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying", e);
        }
    }
}
