package dev.dlock.cli.demo;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock demo flash-sale}. */
@Command(name = "flash-sale",
        mixinStandardHelpOptions = true,
        description = {"A flash sale: --stock units, --buyers buyers on --clients app servers at once. A "
                + "purchase reads the stock, checks it, pauses, writes it back minus one and records the "
                + "order: plain Redis keys (on PostgreSQL: rows of the demo's own tables, each statement its "
                + "own transaction), nothing atomic.",
                "nolock: buyers who read the same stock all sell a unit, and the shop oversells.",
                "lock: each buyer holds the lock 'flash-sale:phone' for its purchase, and exactly the "
                        + "stock is sold.",
                "Ends with a table per mode, then the lock waits as dlock's meter dlock.acquire.wait recorded "
                        + "them (--metrics-port serves every dlock meter to Prometheus); exits 1 when the lock "
                        + "mode did not sell exactly the stock."})
public final class FlashSaleCommand implements Callable<Integer> {

    @ParentCommand
    private DemoCommand demo;

    @Spec
    private CommandSpec spec;

    @Mixin
    private FlashSaleOptions options;

    @Override
    public Integer call() {
        return new FlashSale(options, demo.dlock(), spec.commandLine().getOut(), spec.commandLine().getErr()).run();
    }
}
