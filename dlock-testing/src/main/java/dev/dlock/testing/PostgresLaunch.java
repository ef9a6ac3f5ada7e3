package dev.dlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link PostgresServer}'s postmaster is started: one command line (the data directory of
 * the cluster's temp directory, the harness defaults, then the caller's settings) on one port, and
 * awaited until its log says it is ready to accept connections. A port taken by someone else is
 * retried on another free port at the first start, and on the same port (for a while) at a restart.
 */
final class PostgresLaunch {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RESTART_BIND_TIMEOUT = Duration.ofSeconds(10);
    private static final int START_PORT_ATTEMPTS = 5;

    /** A postmaster that accepts connections, and how it was launched. */
    record Started(PostgresLaunch launch, Process postmaster) {
    }

    private final Path dir;
    private final List<String> settings;
    private final int port;

    /**
     * @param dir      the cluster's temp directory: its data in {@code data}, its socket and log
     * @param settings extra server settings as {@code name=value}, after the harness defaults
     */
    PostgresLaunch(Path dir, List<String> settings, int port) {
        this.dir = dir;
        this.settings = List.copyOf(settings);
        this.port = port;
    }

    /** Starts the postmaster on a free port, trying up to 5 ports while the chosen one is taken. */
    static Started onFreePort(Path dir, List<String> settings) {
        IllegalStateException lastFailure = null;
        for (int attempt = 0; attempt < START_PORT_ATTEMPTS; attempt++) {
            PostgresLaunch launch = new PostgresLaunch(dir, settings, FreePorts.next());
            try {
                return new Started(launch, launch.start());
            } catch (IllegalStateException e) {
                lastFailure = e;
                if (!launch.logSince(0).contains("could not bind")) {
                    throw e;
                }
            }
        }
        throw lastFailure;
    }

    /** Starts the postmaster on its port, which the sockets of a server killed there may hold a moment longer. */
    Process onItsPort() {
        long deadline = System.nanoTime() + RESTART_BIND_TIMEOUT.toNanos();
        while (true) {
            try {
                return start();
            } catch (IllegalStateException e) {
                if (!logSince(0).contains("could not bind") || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                pauseBriefly();
            }
        }
    }

    Path dir() {
        return dir;
    }

    List<String> settings() {
        return settings;
    }

    int port() {
        return port;
    }

    Path logFile() {
        return dir.resolve("postgres.log");
    }

    /** The poll interval of the harness's waits for a condition it cannot be told about. */
    static void pauseBriefly() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }

    private Process start() {
        List<String> cmd = new ArrayList<>(List.of(PostgresInstall.binary("postgres"),
                "-D", dir.resolve("data").toString(), "-p", Integer.toString(port), "-k", dir.toString(),
                "-c", "listen_addresses=" + RedisServer.HOST,
                "-c", "fsync=off",
                "-c", "full_page_writes=off",
                "-c", "max_connections=300",
                "-c", "shared_buffers=32MB",
                "-c", "logging_collector=off"));
        for (String setting : settings) {
            cmd.add("-c");
            cmd.add(setting);
        }
        long offset = logSize();
        ProcessBuilder pb = new ProcessBuilder(PostgresInstall.asServerUser(cmd))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("HOME", dir.toString());
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run postgres: " + e.getMessage(), e);
        }
        ProcessReaper.register(process);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!logSince(offset).contains("ready to accept")) {
            if (!process.isAlive()) {
                ProcessReaper.killAndWait(process);
                throw failure("postgres on port " + port + " exited with code " + process.exitValue());
            }
            if (System.nanoTime() - deadline >= 0) {
                ProcessReaper.killAndWait(process);
                throw failure("postgres on port " + port + " did not get ready within " + START_TIMEOUT.toSeconds() + " s");
            }
            ProcessSignals.waitOrExit(process, Duration.ofMillis(10));
        }
        return process;
    }

    private long logSize() {
        try {
            return Files.exists(logFile()) ? Files.size(logFile()) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private String logSince(long offset) {
        try {
            byte[] bytes = Files.exists(logFile()) ? Files.readAllBytes(logFile()) : new byte[0];
            int from = (int) Math.min(offset, bytes.length);
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private IllegalStateException failure(String message) {
        return new IllegalStateException(message + "\n--- postgres.log (tail) ---\n" + ProcessReaper.tail(logFile(), 40));
    }
}
