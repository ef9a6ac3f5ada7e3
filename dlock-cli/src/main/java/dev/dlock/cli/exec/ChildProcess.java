package dev.dlock.cli.exec;

import dev.dlock.cli.common.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The command {@code exec} runs under the lock: started with dlock's stdin, stdout and stderr,
 * stopped on request with SIGTERM and, after a grace period, SIGKILL. When asked, and setsid(1)
 * is there, it runs in a process group of its own (setsid execs the command in place: a child of
 * the JVM never leads a group, so setsid does not fork and the command's pid is its group's id),
 * and signals go to the whole group, as timeout(1) does: a process the command started that left
 * the process tree (double fork) but not the group is signalled too.
 *
 * <p>In front of the command, each where the machine has it (every Debian system has all three):
 * setsid(1) as above; {@code setpriv --pdeathsig KILL} (util-linux), so that the kernel kills the
 * command when dlock dies, even by SIGKILL, before the lease lets another holder in; and
 * {@link StartCommand} (perl), which gives the command the signal mask and ignored signals dlock
 * itself started with, as a shell would, instead of the JVM's. Each execs the next in place: the
 * command keeps the pid the JVM started.
 */
final class ChildProcess {

    private static final Path SETSID = findProgram("setsid");
    private static final Path SETPRIV = findProgram("setpriv");
    private static final Path PERL = findProgram("perl");

    private static final int SIGKILL = 9;

    private final List<String> argv;
    private final Process process;
    private final boolean ownGroup;

    private ChildProcess(List<String> argv, Process process, boolean ownGroup) {
        this.argv = argv;
        this.process = process;
        this.ownGroup = ownGroup;
    }

    /**
     * @param ownGroup run the command in a process group of its own, if setsid(1) is available
     * @throws CannotStart the program was not found or cannot be executed; carries the exit code
     *                     a shell would give (127, 126)
     */
    static ChildProcess start(List<String> argv, Map<String, String> extraEnv, boolean ownGroup) {
        boolean grouped = ownGroup && SETSID != null;
        List<String> launched = new ArrayList<>();
        if (grouped) {
            launched.add(SETSID.toString());
        }
        if (SETPRIV != null) {
            // killed with dlock, even by kill -9: else it would run on unguarded once the lease frees the lock
            launched.addAll(List.of(SETPRIV.toString(), "--pdeathsig", "KILL"));
        }
        launched.addAll(StartCommand.arguments(PERL));
        if (!launched.isEmpty()) {
            // the programs in front would report a missing command themselves: check first, so the message is dlock's
            checkRunnable(argv.get(0));
        }
        launched.addAll(argv);
        ProcessBuilder builder = new ProcessBuilder(launched).inheritIO();
        builder.environment().putAll(extraEnv);
        try {
            return new ChildProcess(argv, builder.start(), grouped);
        } catch (IOException e) {
            String message = String.valueOf(e.getMessage());
            boolean notFound = message.contains("error=2,") || message.contains("No such file");
            String reason = message.contains(", ") ? message.substring(message.lastIndexOf(", ") + 2) : message;
            throw new CannotStart("cannot run '" + argv.get(0) + "': " + reason,
                    notFound ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_RUN);
        }
    }

    /**
     * The program as a shell would find it: 127 when it is nowhere, 126 when it is there but cannot
     * be run. A path names one file, a directory included ("Is a directory", as sh and timeout(1)
     * exit 126); a bare name is looked up on the PATH, where directories are passed over.
     */
    private static void checkRunnable(String program) {
        if (program.contains("/")) {
            Path named = Path.of(program);
            if (Files.isDirectory(named)) {
                throw new CannotStart("cannot run '" + program + "': Is a directory", ExitCodes.CANNOT_RUN);
            }
            if (Files.isRegularFile(named) && Files.isExecutable(named)) {
                return;
            }
            throw cannotStart(program, Files.exists(named));
        }
        boolean found = false;
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(candidate)) {
                if (Files.isExecutable(candidate)) {
                    return;
                }
                found = true;
            }
        }
        throw cannotStart(program, found);
    }

    private static CannotStart cannotStart(String program, boolean found) {
        return new CannotStart("cannot run '" + program + "': " + (found ? "Permission denied" : "No such file or directory"),
                found ? ExitCodes.CANNOT_RUN : ExitCodes.NOT_FOUND);
    }

    private static Path findProgram(String name) {
        for (String dir : new String[] {"/usr/bin", "/bin", "/usr/local/bin"}) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
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
     * Sends {@code signal} to the command's process group when it has its own, else to the command
     * alone, as a shell's {@code kill -s} would. Through {@code kill(1)}; SIGTERM to the command
     * alone through the JDK, and as the fallback without kill(1).
     */
    void signal(int signal) {
        if (ownGroup && killGroup(signal)) {
            return;
        }
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
        List<ProcessHandle> descendants = outsideTheGroup(process.descendants().toList());
        if (!(ownGroup && killGroup(SignalRelay.SIGTERM))) {
            process.destroy();
        }
        descendants.forEach(ProcessHandle::destroy);
        boolean ended = waitQuietly(grace);
        if (!ended) {
            kill();
        }
        return !ended;
    }

    /** SIGKILL to the command and everything it started. */
    void kill() {
        List<ProcessHandle> descendants = outsideTheGroup(process.descendants().toList());
        if (!(ownGroup && killGroup(SIGKILL))) {
            process.destroyForcibly();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /** Those of the processes that a signal to the command's group does not reach (each must get one, once). */
    private List<ProcessHandle> outsideTheGroup(List<ProcessHandle> processes) {
        if (!ownGroup) {
            return processes;
        }
        return processes.stream().filter(handle -> processGroup(handle.pid()) != process.pid()).toList();
    }

    /** From /proc/PID/stat (the field after the state and the parent's pid); -1 when unknown. */
    private static long processGroup(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[2]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** {@code kill -SIGNAL -- -PGID}: whether kill(1) reported success. */
    private boolean killGroup(int signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + process.pid())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
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
