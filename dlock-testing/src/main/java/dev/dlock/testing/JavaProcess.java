package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Handle to a child JVM started by {@link JavaProcesses}. Its stdout and stderr go to one {@link
 * #logFile() log file}, which is kept after the process ends (for failure messages) and deleted
 * when the test JVM exits. Thread-safe.
 */
public final class JavaProcess implements AutoCloseable {

    private static final int LOG_TAIL_LINES = 60;

    private final Process process;
    private final Path logFile;

    JavaProcess(Process process, Path logFile) {
        this.process = process;
        this.logFile = logFile;
    }

    /** @return the OS process id of the child JVM */
    public long pid() {
        return process.pid();
    }

    /** @return the underlying process, e.g. for {@link Process#onExit()} or {@link Process#isAlive()} */
    public Process process() {
        return process;
    }

    /** @return the file receiving the child's stdout and stderr */
    public Path logFile() {
        return logFile;
    }

    /**
     * @return the whole log written so far (UTF-8, malformed bytes replaced); may end in a partial
     *     line while the process is running
     */
    public String log() {
        try {
            return new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + logFile, e);
        }
    }

    /**
     * Kills the child with SIGKILL (no shutdown hooks run in it, like a crash) and waits until it has
     * exited. No-op if it already exited.
     */
    public void kill() {
        ProcessReaper.killAndWait(process);
    }

    /**
     * Pauses the child with SIGSTOP, as a long GC pause or a frozen VM would, and waits until it is
     * stopped. Its threads, timers and sockets stay as they are until {@link #resume()}.
     */
    public void pause() {
        ProcessSignals.send(process, "-STOP");
        ProcessSignals.awaitStopped(process, true);
    }

    /** Lets a {@linkplain #pause() paused} child run on (SIGCONT) and waits until it runs. */
    public void resume() {
        ProcessSignals.send(process, "-CONT");
        ProcessSignals.awaitStopped(process, false);
    }

    /**
     * Waits for the child to exit.
     *
     * @param timeout maximum time to wait
     * @return the exit code
     * @throws AssertionError if it is still running after {@code timeout}, with the tail of its log;
     *     the child is left running (use {@link #close()} or {@link #kill()})
     */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new AssertionError("java process " + pid() + " did not exit within " + timeout
                        + "\n--- log tail (" + logFile + ") ---\n" + ProcessReaper.tail(logFile, LOG_TAIL_LINES));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for java process " + pid(), e);
        }
        ProcessReaper.unregister(process);
        return process.exitValue();
    }

    /** Kills the child if it is still alive. Idempotent; the log file is kept until JVM exit. */
    @Override
    public void close() {
        kill();
    }

    @Override
    public String toString() {
        return "JavaProcess[pid=" + pid() + ", " + (process.isAlive() ? "alive" : "exit " + process.exitValue())
                + ", log=" + logFile + "]";
    }
}
