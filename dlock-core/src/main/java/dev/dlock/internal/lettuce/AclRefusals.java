package dev.dlock.internal.lettuce;

import dev.dlock.NodeError;
import dev.dlock.internal.store.NodeFailure;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A script's command refused to the client's ACL user, said as NOPERM with the command named. Redis
 * 7.0 does not name it ({@code ERR The user executing the script can't run this command or
 * subcommand script: <sha>, on @user_script:219.}), Valkey 8 does ({@code ERR ACL failure in
 * script: User u has no permissions to run the 'hset' command script: ...}); both name the line of
 * the script, whose {@code redis.call} names the command.
 */
public final class AclRefusals {

    private static final Pattern SCRIPT_REFUSAL =
            Pattern.compile("can't run this command or subcommand|ACL failure in script|^NOPERM");
    private static final Pattern SCRIPT_LINE = Pattern.compile("@user_script:(\\d+)");
    private static final Pattern CALLED_COMMAND = Pattern.compile("redis\\.p?call\\('([A-Za-z]+)'");

    private AclRefusals() {
    }

    /** The same reply, failing with a NOPERM that names the refused command when the ACL refused one. */
    public static <T> CompletableFuture<T> named(CompletableFuture<T> reply, String scriptName, String scriptBody) {
        return reply.exceptionallyCompose(error -> {
            Throwable cause = LettuceErrors.unwrap(error);
            if (cause instanceof NodeFailure failure && failure.kind() == NodeError.Cause.ERROR_REPLY) {
                String described = describe(String.valueOf(failure.getMessage()), scriptName, scriptBody);
                if (described != null) {
                    return CompletableFuture.failedFuture(
                            new NodeFailure(NodeError.Cause.ERROR_REPLY, failure.address(), described, failure.getCause()));
                }
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /** The refusal said as NOPERM naming the command, or null when the reply is no ACL refusal. */
    public static String describe(String reply, String scriptName, String scriptBody) {
        if (!SCRIPT_REFUSAL.matcher(reply).find()) {
            return null;
        }
        String command = commandOnLine(reply, scriptBody);
        String what = command != null ? "may not run " + command + ", which script " + scriptName + " calls"
                : "may not run a command or touch a key that script " + scriptName + " needs";
        return "NOPERM the client's ACL user " + what + " (the ACL rule a dlock client needs: docs/deployments.md, "
                + "Least privilege); Redis said: " + reply;
    }

    private static String commandOnLine(String reply, String scriptBody) {
        Matcher line = SCRIPT_LINE.matcher(reply);
        if (!line.find()) {
            return null;
        }
        String[] lines = scriptBody.split("\n", -1);
        int index = Integer.parseInt(line.group(1)) - 1;
        if (index < 0 || index >= lines.length) {
            return null;
        }
        Matcher called = CALLED_COMMAND.matcher(lines[index]);
        return called.find() ? called.group(1) : null;
    }
}
