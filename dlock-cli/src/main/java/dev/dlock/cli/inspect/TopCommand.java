package dev.dlock.cli.inspect;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockInfo;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.common.UsageException;
import dev.dlock.cli.terminal.LiveScreen;
import dev.dlock.cli.terminal.Stty;
import dev.dlock.cli.terminal.Terminal;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.LocalTime;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock top [PATTERN]}: who holds what, refreshed until quit. */
@Command(name = "top",
        aliases = "watch",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {"Shows the held locks whose name matches PATTERN, refreshed every --interval: name, "
                + "holder (client, host, pid, thread), held for, lease left and waiting clients, the "
                + "longest held first, under a line with the time, where the locks live and how many are held.",
                "At a terminal the view is redrawn in place; q or Ctrl-C quits. Otherwise (a pipe, a file), "
                        + "and with --once or --iterations, one plain block per refresh, without escape "
                        + "codes, separated by a blank line.",
                "A refresh that fails (the store unreachable) says so in place of the table; the next one tries again."},
        footerHeading = "%nExit codes:%n",
        footer = {
                "    0  quit with q, or the --iterations are done",
                "    2  bad input",
                "   69  the store unreachable at start, or at the last of the --iterations",
                "   70  internal error (a bug in dlock)",
                "  129  SIGHUP (the terminal is given back as it was)",
                "  130  Ctrl-C (the same)",
                "  143  SIGTERM (the same)"})
public final class TopCommand implements Callable<Integer> {

    static final Duration MIN_INTERVAL = Duration.ofMillis(100);

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = {"-n", "--interval"}, paramLabel = "DURATION", converter = Durations.class, defaultValue = "1s",
            description = "Time between refreshes (default: ${DEFAULT-VALUE}, at least 100ms: each one walks "
                    + "the keyspace with SCAN).")
    private Duration interval;

    @Option(names = "--once", description = "One refresh, printed plain: the same as --iterations 1.")
    private boolean once;

    @Option(names = "--iterations", paramLabel = "N",
            description = "Stop after N refreshes, printed plain (default: until quit).")
    private Integer iterations;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "Redis glob on lock names: *, ?, [abc] (default: ${DEFAULT-VALUE}, every lock).")
    private String pattern;

    @Override
    public Integer call() {
        int bound = refreshes();
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            throw new UsageException("--interval " + Durations.format(interval)
                    + " is too short: at least 100ms, since each refresh walks the keyspace");
        }
        if (pattern.isEmpty()) {
            throw new UsageException("bad pattern: '' matches no lock name (use '*' for all)");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = dlock.connect()) {
            // live only when nobody counts the refreshes: a bounded run is for scripts, and its output stays
            if (bound == 0 && Terminal.isInteractive()) {
                BlockingQueue<LiveScreen.Event> events = new LinkedBlockingQueue<>();
                try (LiveScreen screen = LiveScreen.open(out, events)) {
                    live(client, screen, events, new TopView(client.address(), pattern, "q quits"));
                }
                return ExitCodes.OK;
            }
            plain(client, out, bound, new TopView(client.address(), pattern, ""));
            return ExitCodes.OK;
        }
    }

    /** Refreshes until q: a failed refresh is shown, and the next one tries again. */
    private void live(LockClient client, LiveScreen screen, BlockingQueue<LiveScreen.Event> events, TopView view) {
        long next = System.nanoTime();
        while (true) {
            screen.show(refresh(client, view, screen.columns()).lines());
            next = nextRefresh(next);
            while (true) {
                LiveScreen.Event event = poll(events, next);
                if (event == null) {
                    break;
                }
                if (event == LiveScreen.Event.QUIT) {
                    return;
                }
                screen.resized();
            }
        }
    }

    /**
     * One block per refresh, {@code bound} times (0: without end).
     *
     * @throws LockBackendException the last refresh failed
     */
    private void plain(LockClient client, PrintWriter out, int bound, TopView view) {
        // at a terminal the lines fit its width; in a pipe or a file they stay whole
        int width = Terminal.isInteractive() ? Stty.size().map(size -> size[1]).orElse(Integer.MAX_VALUE)
                : Integer.MAX_VALUE;
        long next = System.nanoTime();
        for (int done = 0; bound == 0 || done < bound; done++) {
            Refresh refresh = refresh(client, view, width);
            if (done > 0) {
                out.println();
            }
            refresh.lines().forEach(out::println);
            out.flush();
            if (done + 1 == bound) {
                if (refresh.failure() != null) {
                    throw refresh.failure();
                }
                return;
            }
            next = nextRefresh(next);
            pauseUntil(next);
        }
    }

    private Refresh refresh(LockClient client, TopView view, int width) {
        try {
            List<LockInfo> locks = client.listLocks(pattern);
            return new Refresh(view.locks(LocalTime.now(), locks, width), null);
        } catch (LockBackendException e) {
            String message = String.valueOf(e.getMessage()).strip().lines().findFirst().orElse("");
            return new Refresh(view.failure(LocalTime.now(), message), e);
        } catch (IllegalArgumentException e) {
            throw new UsageException("bad pattern: " + e.getMessage(), e);
        }
    }

    /** At the pace of the interval; after a refresh that took longer, a whole interval from now. */
    private long nextRefresh(long previous) {
        long next = previous + interval.toNanos();
        long now = System.nanoTime();
        return next - now > 0 ? next : now + interval.toNanos();
    }

    /** The next event before {@code deadline} (a {@link System#nanoTime()}), or null when none came. */
    private static <T> T poll(BlockingQueue<T> events, long deadline) {
        try {
            return events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between refreshes", e);
        }
    }

    private static void pauseUntil(long deadline) {
        try {
            TimeUnit.NANOSECONDS.sleep(Math.max(0, deadline - System.nanoTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between refreshes", e);
        }
    }

    /** 0 for without end. */
    private int refreshes() {
        if (once && iterations != null && iterations != 1) {
            throw new UsageException("--once and --iterations " + iterations + " contradict each other: give one");
        }
        if (iterations != null && iterations < 1) {
            throw new UsageException("--iterations " + iterations + " is not a count of refreshes: give 1 or more");
        }
        return once ? 1 : iterations == null ? 0 : iterations;
    }

    /** The lines of one refresh and, when it failed, why. */
    private record Refresh(List<String> lines, LockBackendException failure) {
    }
}
