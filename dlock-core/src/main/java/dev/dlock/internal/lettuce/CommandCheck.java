package dev.dlock.internal.lettuce;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.NodeFailure;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * At build, asks each connected server to run the commands a lock cannot do without, so that a
 * server that refuses one (renamed or disabled with {@code rename-command}, not offered by a managed
 * service, or not granted to the client's ACL user) fails the build with the command's name instead
 * of failing every lock call later: EVALSHA of a script no server has (the answer must be NOSCRIPT),
 * EVAL of a script that only returns, and, with {@code replicaAcks}, {@code WAIT 0 1}. A server that
 * does not answer in time is left to the outage handling of the lock calls.
 */
public final class CommandCheck {

    /** The SHA-1 of no script (dlock's own never have it): EVALSHA of it must answer NOSCRIPT. */
    public static final String NO_SUCH_SCRIPT = "0000000000000000000000000000000000000000";
    public static final String RETURNS_ONLY = "return 1";

    /** What the refusal reply starts with when the client's user lacks a permission. */
    private static final String NO_PERMISSION = "NOPERM";

    /** One probe: the command as a user would name it, and its reply. */
    public record Probe(String command, CompletableFuture<?> reply, String needs) {
    }

    private CommandCheck() {
    }

    /**
     * @throws LockBackendException naming the first command the server refused and its reply
     */
    public static void requireAll(String address, List<Probe> probes, long timeoutMs) {
        for (Probe probe : probes) {
            String refusal = refusal(probe.reply(), timeoutMs);
            if (refusal != null) {
                throw refused(address, probe, refusal);
            }
        }
    }

    /** The error reply, or null when the command ran (or did not answer in time: not a refusal). */
    private static String refusal(CompletableFuture<?> reply, long timeoutMs) {
        try {
            reply.get(timeoutMs, TimeUnit.MILLISECONDS);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            NodeFailure failure = e.getCause() instanceof NodeFailure node ? node : null;
            if (failure == null || failure.kind() != NodeError.Cause.ERROR_REPLY
                    || String.valueOf(failure.getMessage()).startsWith("NOSCRIPT")) {
                return null;
            }
            return failure.getMessage();
        }
    }

    private static LockBackendException refused(String address, Probe probe, String reply) {
        String why = reply.startsWith(NO_PERMISSION)
                ? "the client's ACL user lacks a permission (NOPERM); the ACL rule a dlock client needs is in "
                        + "docs/deployments.md, Least privilege"
                : "the command is renamed or disabled (rename-command) or not offered by this service";
        String message = "Redis at " + address + " refuses " + probe.command() + ", which " + probe.needs() + ": "
                + reply + " (" + why + ")";
        NodeError error = new NodeError(address, NodeError.Cause.ERROR_REPLY, reply);
        return new LockBackendException(message, null, null, List.of(error));
    }

    /**
     * Sends the probes now, in order, on a node's connection.
     *
     * @param asNode the node's translation of a failure into a {@link NodeFailure}
     */
    static <C extends RedisScriptingAsyncCommands<String, String> & BaseRedisAsyncCommands<String, String>> List<Probe>
            send(C commands, CommandOrder order, UnaryOperator<CompletableFuture<?>> asNode, boolean withWait) {
        return of(
                asNode.apply(order.send(() -> commands.<Long>evalsha(NO_SUCH_SCRIPT, ScriptOutputType.INTEGER, new String[0]))),
                asNode.apply(order.send(() -> commands.<Long>eval(RETURNS_ONLY, ScriptOutputType.INTEGER, new String[0]))),
                withWait ? asNode.apply(order.send(() -> commands.waitForReplication(0, 1))) : null);
    }

    /**
     * The probes in the order they are judged.
     *
     * @param waitReply the reply of {@code WAIT 0 1}, or null without {@code replicaAcks}
     */
    public static List<Probe> of(CompletableFuture<?> evalshaReply, CompletableFuture<?> evalReply,
                          CompletableFuture<?> waitReply) {
        List<Probe> probes = new ArrayList<>(List.of(
                new Probe("EVALSHA", evalshaReply, "every lock operation needs"),
                new Probe("EVAL", evalReply, "a lock operation needs once the server's script cache is empty")));
        if (waitReply != null) {
            probes.add(new Probe("WAIT", waitReply, "replicaAcks needs (WAIT after every grant and renewal); "
                    + "build the client without replicaAcks on this deployment"));
        }
        return probes;
    }
}
