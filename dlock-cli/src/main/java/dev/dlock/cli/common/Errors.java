package dev.dlock.cli.common;

import dev.dlock.LockBackendException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;
import picocli.CommandLine;

/**
 * Turns failures into one line on stderr and an exit code; the stack trace only with
 * {@code --verbose}. Bad input exits {@link ExitCodes#USAGE}, an unreachable or failing Redis
 * {@link ExitCodes#REDIS_UNAVAILABLE}; anything else is a bug and exits {@link ExitCodes#INTERNAL_ERROR}.
 */
public final class Errors implements IParameterExceptionHandler, IExecutionExceptionHandler {

    private final boolean verbose;

    public Errors(boolean verbose) {
        this.verbose = verbose;
    }

    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("dlock: " + describe(e) + " (see '" + command.getCommandSpec().qualifiedName() + " --help')");
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

    /** Picocli's message, or for a name it does not know, which name was meant: {@code dlock stauts} suggests status. */
    private static String describe(ParameterException e) {
        String message = firstLine(e.getMessage());
        if (!(e instanceof UnmatchedArgumentException unmatched) || unmatched.getUnmatched().isEmpty()) {
            return message;
        }
        String first = unmatched.getUnmatched().get(0);
        // the root takes no positional parameter: a word where a command belongs is a command it does not know
        boolean command = e.getCommandLine().getParent() == null && !first.startsWith("-");
        if (command) {
            message = "unknown command '" + first + "'";
        }
        List<String> suggestions = unmatched.getSuggestions();
        return suggestions.isEmpty() ? message : message + ": did you mean " + suggestions.get(0) + "?";
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
