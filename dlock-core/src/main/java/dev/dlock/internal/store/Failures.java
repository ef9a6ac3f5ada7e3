package dev.dlock.internal.store;

import dev.dlock.LockBackendException;
import dev.dlock.LockLostException;
import dev.dlock.NodeError;
import dev.dlock.internal.redis.RedisNode;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** Turns node failures ({@link NodeFailure}) into the exceptions and messages users see. */
public final class Failures {

    private Failures() {
    }

    /**
     * Describes a failed command on a lock on one node. When the command may have run (timeout,
     * connection lost with the command in flight) the message says the outcome is unknown.
     */
    public static LockBackendException commandFailed(String operation, LockTarget target, RedisNode node, long timeoutMs,
                                              Throwable error) {
        Throwable unwrapped = unwrap(error);
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
            case ERROR_REPLY -> operation + " failed for " + lock + " on " + node.address()
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
        Throwable cause = unwrap(error);
        if (cause instanceof NodeFailure failure) {
            return failure;
        }
        if (cause instanceof TimeoutException) {
            // a node that died after connecting shows up as a timeout: commands wait for a reconnect
            return new NodeFailure(NodeError.Kind.TIMEOUT, node.address(), "timed out after " + timeoutMs + " ms"
                    + (node.isConnected() ? "" : " (not connected: unreachable)"), cause);
        }
        return new NodeFailure(NodeError.Kind.OTHER, node.address(), rootMessage(cause), cause);
    }

    /** Whether the command may have been applied although the caller saw an error. */
    public static boolean outcomeUnknown(Throwable error) {
        Throwable cause = unwrap(error);
        return !(cause instanceof NodeFailure failure) || failure.kind().outcomeUnknown();
    }

    /** The same failure with more said at the end of its message; its data is kept. */
    public static LockBackendException extend(LockBackendException failure, String more) {
        return new LockBackendException(failure.getMessage() + more, failure, failure.lockName().orElse(null),
                failure.nodeErrors());
    }

    public static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /**
     * The exception to throw on the caller's thread for a failed future: a copy of dlock's own
     * exceptions (so the stack shows the caller) with the original as cause.
     */
    public static RuntimeException forCaller(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof LockLostException lost) {
            LockLostException copy = new LockLostException(lost.lockName(), lost.fencingToken(), lost.getMessage());
            copy.initCause(lost);
            return copy;
        }
        if (cause instanceof LockBackendException backend) {
            return extend(backend, "");
        }
        if (cause instanceof NodeFailure failure) {
            NodeError described = failure.toNodeError();
            return new LockBackendException(described.toString(), failure, null, List.of(described));
        }
        if (cause instanceof CancellationException cancelled) {
            return cancelled;
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new LockBackendException(rootMessage(cause), cause);
    }

    public static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null ? root.getClass().getSimpleName() : message;
    }
}
