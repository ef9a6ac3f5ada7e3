package dev.dlock.cli.inspect;

import dev.dlock.LockClient;
import dev.dlock.LockInfo;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.ExitCodes;
import dev.dlock.cli.common.LockInfoView;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock status NAME}. */
@Command(name = "status",
        mixinStandardHelpOptions = true,
        description = {"Shows whether lock NAME is held, by whom (client name, host, pid, thread), its hold "
                + "count, how long it has been held, lease left, fencing token and how many clients wait for it; "
                + "for a semaphore every permit holder, for a read-write lock every reader.",
                "Exits 0 whether the lock is held or free."})
public final class StatusCommand implements Callable<Integer> {

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object (fields in docs/cli.md).")
    private boolean json;

    @Parameters(index = "0", paramLabel = "NAME", description = "Name of the lock.")
    private String name;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        DlockCommand.checkName(name);
        try (LockClient client = dlock.connect()) {
            LockInfo info = client.getLock(name).info();
            out.print(json ? LockInfoView.toJson(LockInfoView.json(info)) + System.lineSeparator() : LockInfoView.text(info, dlock.clientOptions().isPostgres()));
            out.flush();
            return ExitCodes.OK;
        }
    }
}
