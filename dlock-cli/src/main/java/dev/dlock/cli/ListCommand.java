package dev.dlock.cli;

import dev.dlock.LockClient;
import dev.dlock.LockHold;
import dev.dlock.LockInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock list [PATTERN]}. */
@Command(name = "list",
        mixinStandardHelpOptions = true,
        description = {"Lists every held lock whose name matches PATTERN, with its holder and lease left: one "
                + "row per holder (each permit of a semaphore, each reader of a read-write lock).",
                "Walks the keyspace with SCAN (Redis is not blocked) and reads each lock: meant for "
                        + "people and scripts, not hot paths. Exits 0, also when nothing is held."})
public final class ListCommand implements Callable<Integer> {

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON array of the objects 'status --json' prints.")
    private boolean json;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "Redis glob on lock names: *, ?, [abc] (default: ${DEFAULT-VALUE}, every lock).")
    private String pattern;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient client = dlock.connect(LockClient.DEFAULT_COMMAND_TIMEOUT)) {
            List<LockInfo> locks;
            try {
                locks = client.listLocks(pattern);
            } catch (IllegalArgumentException e) {
                throw new UsageException("bad pattern: " + e.getMessage(), e);
            }
            if (json) {
                out.println(LockInfoView.toJson(locks.stream().map(LockInfoView::json).toList()));
            } else if (locks.isEmpty()) {
                out.println("no held lock matches '" + pattern + "'");
            } else {
                printTable(out, locks);
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    /** One row per hold: a read-write lock's readers and a semaphore's permits each have theirs. */
    private static void printTable(PrintWriter out, List<LockInfo> locks) {
        List<String[]> rows = new ArrayList<>();
        for (LockInfo info : locks) {
            if (info.holds().isEmpty()) {
                rows.add(new String[] {info.name(), info.holder().map(LockInfoView::holder).orElse("-"),
                        Durations.format(info.remainingLease()), Long.toString(info.waitingClients())});
            }
            for (LockHold hold : info.holds()) {
                rows.add(new String[] {info.name(), LockInfoView.holdLabel(info, hold) + LockInfoView.holder(hold.holder()),
                        Durations.format(hold.remainingLease()), Long.toString(info.waitingClients())});
            }
        }
        int nameWidth = Math.max(4, rows.stream().mapToInt(row -> row[0].length()).max().orElse(0));
        int holderWidth = Math.max(6, rows.stream().mapToInt(row -> row[1].length()).max().orElse(0));
        String format = "%-" + nameWidth + "s  %-" + holderWidth + "s  %10s  %s%n";
        out.printf(format, "NAME", "HOLDER", "LEASE LEFT", "WAITING");
        for (String[] row : rows) {
            out.printf(format, (Object[]) row);
        }
    }
}
