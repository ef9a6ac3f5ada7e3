package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Signals to a child process with kill(1), and waits for the effect as /proc reports it. */
final class ProcessSignals {

    private ProcessSignals() {
    }

    /**
     * Sends {@code signal} (such as {@code "-STOP"}) to the process.
     *
     * @throws IllegalStateException if kill(1) fails or does not return within 5 s
     */
    static void send(Process process, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " timed out");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + signal, e);
        }
    }

    /**
     * Waits until /proc reports the process stopped (state T) or not. kill(1) returns once the signal
     * is queued, not when it has taken effect; without /proc (non-Linux) this returns immediately.
     */
    static void awaitStopped(Process process, boolean stopped) {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (process.isAlive() && Files.exists(stat)) {
            String state = procState(stat);
            if (state == null || state.equals("T") == stopped) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("process " + process.pid() + " did not become "
                        + (stopped ? "stopped" : "running") + ", state " + state);
            }
            waitOrExit(process, Duration.ofMillis(1));
        }
    }

    /** Waits up to {@code max} but returns as soon as the process exits. */
    static void waitOrExit(Process process, Duration max) {
        try {
            process.onExit().get(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException expected) {
            // the usual case: the process is still running
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    private static String procState(Path stat) {
        try {
            String s = Files.readString(stat);
            // Format: "pid (comm) S ..."; comm may contain spaces and parentheses, so split at the last ')'.
            int close = s.lastIndexOf(')');
            return close < 0 || close + 2 >= s.length() ? null : s.substring(close + 2, close + 3);
        } catch (IOException e) {
            return null;
        }
    }
}
