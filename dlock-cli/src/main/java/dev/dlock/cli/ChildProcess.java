package dev.dlock.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The command {@code exec} runs under the lock: started with dlock's stdin, stdout and stderr,
 * stopped on request with SIGTERM and, after a grace period, SIGKILL.
 */
final class ChildProcess {

    private final List<String> argv;
    private final Process process;

    private ChildProcess(List<String> argv, Process process) {
        this.argv = argv;
        this.process = process;
    }

    /**
     * @throws CannotStart the program was not found or cannot be executed; carries the exit code
     *                     a shell would give (127, 126)
     */
    static ChildProcess start(List<String> argv, Map<String, String> extraEnv) {
        ProcessBuilder builder = new ProcessBuilder(argv).inheritIO();
        builder.environment().putAll(extraEnv);
        try {
            return new ChildProcess(argv, builder.start());
        } catch (IOException e) {
            String message = String.valueOf(e.getMessage());
            boolean notFound = message.contains("error=2,") || message.contains("No such file");
            String reason = message.contains(", ") ? message.substring(message.lastIndexOf(", ") + 2) : message;
            throw new CannotStart("cannot run '" + argv.get(0) + "': " + reason,
                    notFound ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_RUN);
        }
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    String name() {
        return argv.get(0);
    }

    /** Blocks until the command ends; its exit code, 128 + N when signal N ended it. */
    int waitForExit() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Sends {@code signal} to the command alone, as a shell's {@code kill -s} would. SIGTERM goes
     * through the JDK; other signals through {@code kill(1)}, falling back to SIGTERM without it.
     */
    void signal(int signal) {
        if (signal != SignalRelay.SIGTERM) {
            try {
                Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0) {
                    return;
                }
            } catch (IOException e) {
                // no kill(1) on this machine: SIGTERM below still asks the command to stop
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        process.destroy();
    }

    /**
     * Stops the command and everything it started, as timeout(1) stops its process group:
     * SIGTERM now, SIGKILL to whatever is left after {@code grace}. Returns once the command ended.
     *
     * @return whether SIGKILL was needed
     */
    boolean terminate(Duration grace) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        boolean ended = waitQuietly(grace);
        if (!ended) {
            kill();
        }
        return !ended;
    }

    /** SIGKILL to the command and everything it started. */
    void kill() {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    private boolean waitQuietly(Duration timeout) {
        try {
            return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    /** The command could not be started; {@link #exitCode()} is the shell's code for it. */
    static final class CannotStart extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int exitCode;

        CannotStart(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }

        int exitCode() {
            return exitCode;
        }
    }
}
