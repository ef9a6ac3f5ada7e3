package dev.dlock.cli.demo;

import dev.dlock.cli.DlockCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code dlock demo}: runs the default demo, the flash sale. */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {"Runs a demo; without a name, the flash sale (see 'dlock demo flash-sale --help').",
                "Uses --redis or $REDIS_URL, else localhost:6379 when a Redis answers there, else starts a "
                        + "redis-server of its own on a free port and stops it on exit.",
                "With --postgres URL (or $DLOCK_POSTGRES_URL) it runs on that PostgreSQL: the locks in dlock's "
                        + "tables, the stock and orders in dlock_demo_stock and dlock_demo_order (created if "
                        + "missing). It starts no PostgreSQL of its own."},
        subcommands = FlashSaleCommand.class)
public final class DemoCommand implements Callable<Integer> {

    @ParentCommand
    private DlockCommand dlock;

    @Spec
    private CommandSpec spec;

    @Mixin
    private FlashSaleOptions options;

    @Override
    public Integer call() {
        return new FlashSale(options, dlock, spec.commandLine().getOut(), spec.commandLine().getErr()).run();
    }

    DlockCommand dlock() {
        return dlock;
    }
}
