package dev.dlock.cli;

import dev.dlock.LockBackendException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns failures into one line on stderr and an exit code; the stack trace only with
 * {@code --verbose}. Bad input exits {@link ExitCodes#USAGE}, an unreachable or failing Redis
 * {@link ExitCodes#REDIS_UNAVAILABLE}; anything else is a bug and exits {@link ExitCodes#INTERNAL_ERROR}.
 */
final class Errors implements IParameterExceptionHandler, IExecutionExceptionHandler {

    private final boolean verbose;

    Errors(boolean verbose) {
        this.verbose = verbose;
    }

    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("dlock: " + firstLine(e.getMessage()) + " (see '" + command.getCommandSpec().qualifiedName()
                + " --help')");
        traceIfVerbose(e, err);
        return ExitCodes.USAGE;
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine command, ParseResult parseResult) {
        PrintWriter err = command.getErr();
        if (e instanceof UsageException || e instanceof LockBackendException) {
            err.println("dlock: " + firstLine(e.getMessage()));
            traceIfVerbose(e, err);
            boolean badInput = e instanceof UsageException || Refusals.isPermanent((LockBackendException) e);
            return badInput ? ExitCodes.USAGE : ExitCodes.REDIS_UNAVAILABLE;
        }
        err.println("dlock: internal error, please report it: " + firstLine(String.valueOf(e))
                + (verbose ? "" : " (--verbose shows the stack trace)"));
        traceIfVerbose(e, err);
        return ExitCodes.INTERNAL_ERROR;
    }

    private void traceIfVerbose(Exception e, PrintWriter err) {
        if (verbose) {
            e.printStackTrace(err);
            err.flush();
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no message)";
        }
        String trimmed = message.strip();
        int newline = trimmed.indexOf('\n');
        return newline < 0 ? trimmed : trimmed.substring(0, newline).strip();
    }
}
