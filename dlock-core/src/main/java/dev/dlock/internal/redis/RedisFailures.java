package dev.dlock.internal.redis;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.NodeFailure;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** A Redis node's failures as users read them: which command on which lock on which server, and how. */
public final class RedisFailures {

    private RedisFailures() {
    }

    /**
     * Describes a failed command on a lock on one node. When the command may have run (timeout,
     * connection lost with the command in flight) the message says the outcome is unknown.
     */
    public static LockBackendException commandFailed(String operation, LockTarget target, RedisNode node, long timeoutMs,
                                              Throwable error) {
        Throwable unwrapped = Failures.unwrap(error);
        if (unwrapped instanceof LockBackendException backend) {
            return backend;
        }
        NodeFailure failure = asNodeFailure(node, error, timeoutMs);
        String lock = "lock '" + target.name() + "'";
        String message = switch (failure.kind()) {
            case WRONG_TYPE -> "key '" + target.key() + "' of " + lock + " holds a value of another type, "
                    + "not a dlock lock: something else wrote to it; delete it or use another key prefix";
            case TIMEOUT, OTHER -> operation + " outcome unknown for " + lock + " on " + node.address() + ": "
                    + failure.getMessage();
            case UNREACHABLE -> operation + " failed for " + lock + ": Redis at " + node.address() + " unreachable: "
                    + failure.getMessage();
            case ERROR_REPLY, REFUSED -> operation + " failed for " + lock + " on " + node.address()
                    + ": Redis replied with an error: " + failure.getMessage();
        };
        return new LockBackendException(message, failure, target.name(), List.of(failure.toNodeError()));
    }

    /**
     * The node's failure as a {@link NodeFailure}: as the node reported it, or, for a timeout of
     * the caller's own ({@code orTimeout}) or anything unexpected, described here.
     *
     * @param timeoutMs the caller's own timeout, for its message
     */
    public static NodeFailure asNodeFailure(RedisNode node, Throwable error, long timeoutMs) {
        Throwable cause = Failures.unwrap(error);
        if (cause instanceof NodeFailure failure) {
            return failure;
        }
        if (cause instanceof TimeoutException) {
            // a node that died after connecting shows up as a timeout: commands wait for a reconnect
            return new NodeFailure(NodeError.Cause.TIMEOUT, node.address(), "timed out after " + timeoutMs + " ms"
                    + (node.isConnected() ? "" : " (not connected: unreachable)"), cause);
        }
        return new NodeFailure(NodeError.Cause.OTHER, node.address(), Failures.rootMessage(cause), cause);
    }
}
