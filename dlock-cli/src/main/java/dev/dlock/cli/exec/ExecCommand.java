package dev.dlock.cli.exec;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.LockHandle;
import dev.dlock.LockLostException;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.common.UsageException;
import dev.dlock.cli.store.ConnectWithin;
import dev.dlock.cli.terminal.Terminal;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock exec}: flock(1) across hosts. */
@Command(name = "exec",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        customSynopsis = "dlock exec [OPTIONS] [--permits N | --shared | --exclusive | --fair] NAME -- COMMAND [ARGS...]",
        description = {
                "Runs COMMAND while holding the lock NAME: flock(1), across hosts.",
                "",
                "By default the lock is exclusive. --shared and --exclusive take the two sides of a "
                        + "read-write lock (many --shared runs at once, or one --exclusive run: flock -s / -x); "
                        + "--permits N takes a permit of a semaphore (at most N runs at once, across hosts); "
                        + "--fair is granted in the order asked. They exclude each other.",
                "",
                "The lock is renewed while the command runs. The command finds DLOCK_NAME and "
                        + "DLOCK_FENCING_TOKEN in its environment; hand the token to what you protect, "
                        + "so that it can refuse a holder that lost the lock.",
                "If the lock is lost (its lease could not be renewed, or 'dlock release --force' took "
                        + "it) the command gets SIGTERM, SIGKILL after --grace, and dlock exits 122.",
                "SIGTERM, SIGINT and SIGHUP to dlock are passed on to the command; dlock releases the "
                        + "lock when the command has ended and exits with its code. At a terminal, Ctrl-C and a "
                        + "hang-up the shell passes on reach the command by themselves, so dlock does not send "
                        + "them twice; it does when it runs in the background, or leads the terminal's session "
                        + "(a hang-up then reaches dlock alone). A second signal passed on kills the command "
                        + "(SIGKILL). The command dies with dlock, even by kill -9 (setpriv --pdeathsig), and "
                        + "starts with the signal mask and ignored signals dlock started with, as from a shell.",
                "Not at a terminal, the command runs in a process group of its own (through setsid(1)), "
                        + "and every signal goes to the whole group, so whatever the command started is "
                        + "stopped with it, unless it left the group (a daemon calling setsid). At a "
                        + "terminal, the command stays in the terminal's foreground group, and the signals "
                        + "go to the command and the processes it started that are still its descendants.",
                "While the store (Redis, PostgreSQL) is unreachable (not started yet, restarting) dlock keeps trying within "
                        + "--wait (without --wait: for 30 s) before it gives up with exit 69.",
                ""},
        footerHeading = "%nExit codes:%n",
        footer = {
                "    1  not acquired within --wait (as flock -w; -E picks another code)",
                "    2  bad input, or the store refused the credentials, permissions,",
                "       database or schema (not retried): nothing was run",
                "   69  the store unreachable for the whole --wait: nothing was run",
                "   70  internal error (a bug in dlock)",
                "  122  the lock was lost while the command ran: it was stopped",
                "  126  COMMAND cannot be executed",
                "  127  COMMAND not found",
                "  else the command's own exit code (128+N when signal N ended it)",
                "%nDurations: 500ms, 1.5s, 10s, 2m, 1h, 1d, combined as 1m30s, or ISO-8601 PT10S;",
                "-w takes seconds (0.5) as flock does.",
                "%nExamples:",
                "  dlock exec --wait 5m nightly-report -- ./make-report.sh --all",
                "  # at most 2 encodes at once, across hosts:",
                "  dlock exec --permits 2 encoder -- ffmpeg -i in.mov out.mp4",
                "  # many readers, or one writer:",
                "  dlock exec --shared catalog -- ./read-catalog.sh",
                "  dlock exec --exclusive catalog -- ./rebuild-catalog.sh",
                "  # from every host's cron: one run per 5 minutes, late starters exit 1:",
                "  dlock exec --wait 0 --hold-at-least 4m cleanup -- ./cleanup.sh"})
public final class ExecCommand implements Callable<Integer> {

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--wait", paramLabel = "DURATION", converter = Durations.class,
            description = "Give up after waiting this long for the lock, exit 1 (default: wait without "
                    + "bound; 0: one attempt).")
    private Duration wait;

    @Option(names = {"-w", "--timeout"}, paramLabel = "SECONDS", converter = Durations.Seconds.class,
            description = "As flock -w: --wait in seconds (fractions allowed: -w 0.5), or a duration with a unit.")
    private Duration waitSeconds;

    @Option(names = {"-n", "--nonblock"}, description = "As flock -n: one attempt, the same as --wait 0.")
    private boolean noWait;

    @Option(names = "--hold-at-least", paramLabel = "DURATION", converter = Durations.class,
            description = "Keep the lock at least this long from when it was acquired, even when the command "
                    + "ends sooner: its lease is set to what is left, and it frees itself then. With --wait 0, "
                    + "a job started by several hosts' cron runs once per schedule.")
    private Duration holdAtLeast;

    @Option(names = "--lease", paramLabel = "DURATION", converter = Durations.class, defaultValue = "30s",
            description = "Lease renewed every third of it while the command runs. A dlock that dies "
                    + "without releasing (kill -9, host down) blocks others for at most this long "
                    + "(default: ${DEFAULT-VALUE}, at least 100ms).")
    private Duration lease;

    @Option(names = {"-E", "--conflict-exit-code"}, paramLabel = "CODE", defaultValue = "1",
            description = "Exit code when the lock is not acquired within --wait, as flock -E "
                    + "(0 to 255, default: ${DEFAULT-VALUE}).")
    private int conflictExitCode;

    @Option(names = "--grace", paramLabel = "DURATION", converter = Durations.class, defaultValue = "10s",
            description = "After the lock is lost, time between SIGTERM and SIGKILL (default: ${DEFAULT-VALUE}).")
    private Duration grace;

    @Option(names = "--permits", paramLabel = "N",
            description = "Hold one of N permits of semaphore NAME: at most N runs at once (every run of NAME "
                    + "must give the same N while any runs).")
    private Integer permits;

    @Option(names = {"-s", "--shared"}, description = "Hold NAME shared (read lock): runs with --shared overlap; "
            + "an --exclusive run waits for them.")
    private boolean shared;

    @Option(names = {"-x", "-e", "--exclusive"}, description = "Hold NAME exclusive (write lock): alone, also against --shared "
            + "runs; waiting exclusive runs go before new shared ones.")
    private boolean exclusive;

    @Option(names = "--fair", description = "Hold NAME as a fair lock: granted in the order the runs asked.")
    private boolean fair;

    @Option(names = {"-o", "--close"}, description = "Accepted for flock's sake: the lock is dlock's, the command "
            + "never has a lock descriptor to inherit, as with flock -o.")
    private boolean close;

    @Parameters(index = "0", paramLabel = "NAME", arity = "0..1", description = "Name of the lock.")
    private String name;

    @Option(names = "--name", paramLabel = "NAME", description = "Name of the lock, instead of NAME: for a name "
            + "that starts with '-'.")
    private String nameOption;

    @Parameters(index = "1..*", paramLabel = "COMMAND", arity = "0..*",
            description = "After '--': the command and its arguments.")
    private List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        List<String> argv = commandAfterDelimiter();
        name = lockName(argv);
        wait = oneWait();
        checkDurations();
        ExecLock.check(permits, shared, exclusive, fair);
        DlockCommand.checkName(name);
        PrintWriter err = spec.commandLine().getErr();
        long startNanos = System.nanoTime();
        try (LockClient client = ConnectWithin.connect(this::connect,
                wait != null ? wait : LockClient.DEFAULT_OUTAGE_TOLERANCE,
                dlock.clientOptions().storeName())) {
            ExecLock lock = ExecLock.of(client, name, permits, shared, exclusive, fair);
            SignalRelay signals = SignalRelay.install(signal -> { });
            Optional<LockHandle> acquired = acquire(lock, signals, startNanos);
            if (signals.received() != 0) {
                acquired.ifPresent(handle -> releaseQuietly(handle, err));
                err.println("dlock: stopped by signal " + signals.received() + " before running the command");
                return ExitCodes.SIGNAL_BASE + signals.received();
            }
            if (acquired.isEmpty()) {
                err.println("dlock: " + lock.describe() + " not acquired within " + Durations.format(wait)
                        + lock.whoHolds());
                return conflictExitCode;
            }
            LockHandle handle = acquired.get();
            if (dlock.verbose()) {
                err.println("dlock: acquired " + lock.describe() + " on " + client.address() + " (fencing token "
                        + handle.fencingToken() + ")");
            }
            return runHolding(handle, argv, signals, err);
        }
    }

    private int runHolding(LockHandle handle, List<String> argv, SignalRelay signals, PrintWriter err) {
        long signalsBefore = signals.count();
        boolean atTerminal = Terminal.isInteractive();
        ChildProcess child;
        try {
            // at a terminal the command must stay in its foreground group, for Ctrl-C and job control
            child = ChildProcess.start(argv, Map.of(
                    "DLOCK_NAME", name,
                    "DLOCK_FENCING_TOKEN", Long.toString(handle.fencingToken())), !atTerminal);
        } catch (ChildProcess.CannotStart e) {
            releaseQuietly(handle, err);
            err.println("dlock: " + e.getMessage());
            return e.exitCode();
        }
        // dlock ended in a way it cannot intercept (System.exit elsewhere, an uncaught error): do
        // not leave the command running unguarded
        Thread orphanGuard = new Thread(child::kill, "dlock-exec-orphan-guard");
        Runtime.getRuntime().addShutdownHook(orphanGuard);
        // a signal that came while the command started is the command's too
        signals.switchTo(SignalRelay.forwardingTo(child, atTerminal, message -> {
            if (dlock.verbose()) {
                err.println("dlock: " + message);
                err.flush();
            }
        }), signalsBefore);

        CompletableFuture.anyOf(child.process().onExit(), handle.whenLost()).join();
        LockLostException lost = handle.whenLost().getNow(null);
        int exitCode = lost != null ? stopAfterLoss(child, lost, err) : releaseAfterExit(child, handle, err);
        try {
            Runtime.getRuntime().removeShutdownHook(orphanGuard);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting anyway; the guard finds the command ended
        }
        return exitCode;
    }

    private int stopAfterLoss(ChildProcess child, LockLostException lost, PrintWriter err) {
        if (!child.isAlive()) {
            err.println("dlock: " + lost.getMessage() + "; the command had ended already");
            return ExitCodes.LOCK_LOST;
        }
        err.println("dlock: " + lost.getMessage() + "; sending SIGTERM to '" + child.name() + "' (pid "
                + child.pid() + "), SIGKILL after " + Durations.format(grace));
        if (child.terminate(grace)) {
            err.println("dlock: '" + child.name() + "' did not stop within " + Durations.format(grace)
                    + ": sent SIGKILL");
        }
        return ExitCodes.LOCK_LOST;
    }

    private int releaseAfterExit(ChildProcess child, LockHandle handle, PrintWriter err) {
        int exitCode = child.waitForExit();
        try {
            if (holdAtLeast != null) {
                handle.releaseHoldingAtLeast(holdAtLeast);
            } else {
                handle.release();
            }
        } catch (LockLostException e) {
            // the loss happened while the command ran, before the watchdog could see it
            err.println("dlock: " + e.getMessage() + "; the command may have run partly without the lock");
            return ExitCodes.LOCK_LOST;
        } catch (LockBackendException e) {
            err.println("dlock: could not release lock '" + name + "' (its lease frees it within "
                    + Durations.format(lease) + "): " + e.getMessage());
        }
        return exitCode;
    }

    /** Waits for the lock within what is left of --wait after connecting. */
    private Optional<LockHandle> acquire(ExecLock lock, SignalRelay signals, long startNanos) {
        CompletableFuture<?> attempt;
        CompletableFuture<Optional<LockHandle>> result;
        if (wait == null) {
            CompletableFuture<LockHandle> unbounded = lock.acquireAsync();
            attempt = unbounded;
            result = unbounded.thenApply(Optional::of);
        } else {
            Duration left = wait.minus(Duration.ofNanos(System.nanoTime() - startNanos));
            result = lock.tryAcquireAsync(left.isNegative() ? Duration.ZERO : left);
            attempt = result;
        }
        signals.switchTo(signal -> attempt.cancel(false), 0);
        try {
            return result.join();
        } catch (CancellationException e) {
            return Optional.empty();
        } catch (CompletionException e) {
            if (e.getCause() instanceof CancellationException) {
                return Optional.empty();
            }
            if (e.getCause() instanceof IllegalStateException differentCount && permits != null) {
                // another run of NAME holds it with another --permits
                throw new UsageException("--permits: " + differentCount.getMessage(), differentCount);
            }
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private void releaseQuietly(LockHandle handle, PrintWriter err) {
        try {
            handle.release();
        } catch (LockLostException | LockBackendException e) {
            err.println("dlock: " + e.getMessage());
        }
    }

    private LockClient connect() {
        // a renewal must be able to time out well within a third of the lease (the builder checks)
        Duration configured = dlock.commandTimeout();
        Duration commandTimeout = configured.compareTo(lease.dividedBy(4)) < 0 ? configured : lease.dividedBy(4);
        LockClientBuilder builder = dlock.clientBuilder();
        try {
            builder.defaultLease(lease);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--lease: " + e.getMessage(), e);
        }
        return DlockCommand.build(builder.commandTimeout(commandTimeout).clientName(clientName()));
    }

    /** Recorded with the hold, so that 'dlock status' tells which command holds the lock. */
    private String clientName() {
        List<String> argv = commandAfterDelimiter();
        String path = argv.get(0);
        String program = path.substring(path.lastIndexOf('/') + 1);
        String printable = program.replaceAll("[^!-~]", "_");
        return "dlock-exec:" + (printable.length() > 64 ? printable.substring(0, 64) : printable);
    }

    /** --wait, -w and -n say one thing: how long to wait. */
    private Duration oneWait() {
        List<String> given = new ArrayList<>();
        if (wait != null) {
            given.add("--wait");
        }
        if (waitSeconds != null) {
            given.add("-w");
        }
        if (noWait) {
            given.add("-n");
        }
        if (given.size() > 1) {
            throw new UsageException(String.join(" and ", given) + " exclude each other: give one of --wait DURATION, "
                    + "-w SECONDS or -n");
        }
        return noWait ? Duration.ZERO : waitSeconds != null ? waitSeconds : wait;
    }

    private void checkDurations() {
        if (wait != null && wait.compareTo(LockClient.MAX_WAIT) > 0) {
            throw new UsageException("--wait: at most " + LockClient.MAX_WAIT.toDays() + " days, got "
                    + Durations.format(wait));
        }
        if (conflictExitCode < 0 || conflictExitCode > 255) {
            throw new UsageException("--conflict-exit-code: an exit code from 0 to 255, got " + conflictExitCode);
        }
        if (holdAtLeast != null && holdAtLeast.compareTo(LockClient.MAX_LEASE) > 0) {
            throw new UsageException("--hold-at-least: at most " + LockClient.MAX_LEASE.toDays() + " days, got "
                    + Durations.format(holdAtLeast));
        }
        if (lease.compareTo(LockClient.MIN_WATCHDOG_LEASE) < 0) {
            throw new UsageException("--lease: at least " + LockClient.MIN_WATCHDOG_LEASE.toMillis()
                    + "ms (renewals go out every third of it), got " + Durations.format(lease));
        }
    }

    /**
     * The command must follow {@code --}, so that its own flags are never read as dlock's, and
     * NAME must come before it.
     */
    private List<String> commandAfterDelimiter() {
        List<String> original = spec.commandLine().getParseResult().originalArgs();
        int delimiter = original.indexOf("--");
        if (delimiter < 0) {
            throw new UsageException("exec needs '--' before the command: dlock exec [OPTIONS] NAME -- COMMAND [ARGS...]");
        }
        List<String> argv = original.subList(delimiter + 1, original.size());
        if (argv.isEmpty()) {
            throw new UsageException("missing command after '--': dlock exec [OPTIONS] NAME -- COMMAND [ARGS...]");
        }
        return List.copyOf(argv);
    }

    /** NAME, before '--' or from --name (once, not both). */
    private String lockName(List<String> argv) {
        List<String> positional = new ArrayList<>();
        if (name != null) {
            positional.add(name);
        }
        positional.addAll(command);
        int named = positional.size() - argv.size() + (nameOption != null ? 1 : 0);
        if (named == 0) {
            throw new UsageException("missing NAME: dlock exec [OPTIONS] NAME -- COMMAND [ARGS...] (or --name NAME)");
        }
        if (named > 1) {
            throw new UsageException(nameOption != null ? "give NAME or --name NAME, not both"
                    : "NAME must come before '--': dlock exec [OPTIONS] NAME -- COMMAND [ARGS...]");
        }
        return nameOption != null ? nameOption : name;
    }
}
