package dev.dlock.cli;

import dev.dlock.cli.common.Errors;
import java.io.PrintWriter;
import java.util.Collection;
import picocli.CommandLine;

/** Entry point of the {@code dlock} command. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs one command line and returns its exit code; never calls System.exit. */
    public static int run(String... args) {
        boolean verbose = Verbosity.requested(args);
        Verbosity.configureLogging(verbose);
        withoutFlightRecorderEvents();
        return commandLine(verbose, DlockCommand.subcommandsFor(args)).execute(args);
    }

    /**
     * Lettuce and Netty each register Java Flight Recorder events when they start, which costs a
     * short command a good part of its run and records nothing anyone reads. Must run before the
     * first Lettuce or Netty class is loaded; a value given with -D wins.
     */
    private static void withoutFlightRecorderEvents() {
        if (System.getProperty("io.lettuce.core.jfr") == null) {
            System.setProperty("io.lettuce.core.jfr", "false");
        }
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
    }

    /** @param subcommands the subcommands to build ({@link DlockCommand#subcommandsFor}) */
    static CommandLine commandLine(boolean verbose, Collection<Class<?>> subcommands) {
        CommandLine cli = new CommandLine(new DlockCommand());
        for (Class<?> subcommand : subcommands) {
            cli.addSubcommand(subcommand);
        }
        // "--wait -5s" must reach the duration parser (which names the value), not read as a flag
        cli.setAllowOptionsAsOptionParameters(true);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        Errors errors = new Errors(verbose);
        cli.setParameterExceptionHandler(errors);
        cli.setExecutionExceptionHandler(errors);
        cli.setOut(new PrintWriter(System.out, true));
        cli.setErr(new PrintWriter(System.err, true));
        return cli;
    }
}
