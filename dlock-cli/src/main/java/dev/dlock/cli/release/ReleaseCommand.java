package dev.dlock.cli.release;

import dev.dlock.DistributedLock;
import dev.dlock.HoldInfo;
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

/** {@code dlock release --force NAME}. */
@Command(name = "release",
        mixinStandardHelpOptions = true,
        description = {"Releases lock NAME whoever holds it. The holder learns it lost the lock at its next "
                + "renewal or release (a 'dlock exec' holder stops its command and exits 122); "
                + "waiters are woken at once.",
                "Exits 0 when the lock was held and is now free, 1 when it was not held."})
public final class ReleaseCommand implements Callable<Integer> {

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--force", required = true,
            description = "Required: says you mean to take the lock away from its holder.")
    private boolean force;

    @Parameters(index = "0", paramLabel = "NAME", description = "Name of the lock.")
    private String name;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        DlockCommand.checkName(name);
        try (LockClient client = dlock.connect()) {
            DistributedLock lock = client.getLock(name);
            LockInfo before = lock.info();
            if (!lock.forceUnlock()) {
                out.println("lock '" + name + "' was not held");
                out.flush();
                return ExitCodes.FAILED;
            }
            if (before.holds().size() > 1) {
                // a semaphore's permits or a read-write lock's readers: every holder that lost it
                out.println("released lock '" + name + "' (held by " + before.holds().size() + " holders):");
                for (HoldInfo hold : before.holds()) {
                    out.println("  " + LockInfoView.holder(hold.holder()) + ", fencing token " + hold.fencingToken());
                }
            } else {
                out.println("released lock '" + name + "'" + before.holder()
                        .map(holder -> " (held by " + LockInfoView.holder(holder) + ", fencing token "
                                + before.fencingToken() + ")")
                        .orElse(""));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}
