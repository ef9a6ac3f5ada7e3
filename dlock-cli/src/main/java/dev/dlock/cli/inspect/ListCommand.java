package dev.dlock.cli.inspect;

import dev.dlock.LockClient;
import dev.dlock.LockInfo;
import dev.dlock.LockListIncompleteException;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.common.LockInfoView;
import dev.dlock.cli.common.UsageException;
import java.io.PrintWriter;
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
        description = {"Lists every held lock whose name matches PATTERN, with its holder, how long it has "
                + "been held, lease left and waiting clients: one row per holder (each permit of a semaphore, "
                + "each reader of a read-write lock).",
                "Walks the keyspace with SCAN (Redis is not blocked) and reads each lock: meant for "
                        + "people and scripts, not hot paths. Exits 0, also when nothing is held.",
                "Every Redlock node, or every Redis Cluster master that serves slots, is walked; when some of them "
                        + "fail, the locks of the others are printed, the failed ones are named on stderr and the exit "
                        + "code is 69."})
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
        try (LockClient client = dlock.connect()) {
            List<LockInfo> locks;
            try {
                locks = client.listLocks(pattern);
            } catch (IllegalArgumentException e) {
                throw new UsageException("bad pattern: " + e.getMessage(), e);
            } catch (LockListIncompleteException incomplete) {
                // what the masters that answered hold is shown; the error names the others, and the exit code says so
                print(out, incomplete.listed());
                throw incomplete;
            }
            print(out, locks);
            return ExitCodes.OK;
        }
    }

    private void print(PrintWriter out, List<LockInfo> locks) {
        if (json) {
            out.println(LockInfoView.toJson(locks.stream().map(LockInfoView::json).toList()));
        } else if (locks.isEmpty()) {
            out.println(LockInfoView.noneMatches(pattern));
        } else {
            LockInfoView.table(locks).forEach(out::println);
        }
        out.flush();
    }
}
