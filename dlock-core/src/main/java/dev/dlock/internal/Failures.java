package dev.dlock.internal;

import dev.dlock.LockBackendException;
import dev.dlock.LockLostException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns client-library failures into the exceptions and messages users see. */
public final class Failures {

    private Failures() {
    }

    /** {@code redis://host:port} or {@code rediss://...}, never with the password. */
    public static String describe(RedisURI uri) {
        String scheme = uri.isSsl() ? "rediss" : "redis";
        if (uri.getSocket() != null) {
            return "redis-socket://" + uri.getSocket();
        }
        return scheme + "://" + uri.getHost() + ":" + uri.getPort();
    }

    static LockBackendException cannotConnect(String address, Throwable error) {
        return new LockBackendException("cannot connect to Redis at " + address + ": " + rootMessage(error), error);
    }

    /**
     * Describes a failed command on a lock. When the command may have run (timeout, connection
     * lost with the command in flight) the message says the outcome is unknown.
     */
    static LockBackendException commandFailed(String operation, String lockName, String key, RedisNode node,
                                              long timeoutMs, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof LockBackendException backend) {
            return backend;
        }
        if (cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).startsWith("WRONGTYPE")) {
            return new LockBackendException("key '" + key + "' of lock '" + lockName + "' holds a value of another type, "
                    + "not a dlock lock: something else wrote to it; delete it or use another key prefix", cause);
        }
        if (cause instanceof RedisCommandTimeoutException) {
            String link = node.isConnected() ? "" : " (not connected: Redis unreachable)";
            return new LockBackendException(operation + " outcome unknown for lock '" + lockName + "' on " + node.address()
                    + ": timed out after " + timeoutMs + " ms" + link, cause);
        }
        if (cause instanceof RedisConnectionException) {
            return new LockBackendException(operation + " failed for lock '" + lockName + "': Redis at " + node.address()
                    + " unreachable: " + rootMessage(cause), cause);
        }
        if (cause instanceof RedisCommandExecutionException) {
            return new LockBackendException(operation + " failed for lock '" + lockName + "' on " + node.address()
                    + ": Redis replied with an error: " + cause.getMessage(), cause);
        }
        return new LockBackendException(operation + " outcome unknown for lock '" + lockName + "' on " + node.address()
                + ": " + rootMessage(cause), cause);
    }

    /** One node's failure in a few words, for quorum messages. */
    static String nodeFailure(RedisNode node, Throwable error, long timeoutMs) {
        Throwable cause = unwrap(error);
        if (cause instanceof java.util.concurrent.TimeoutException || cause instanceof RedisCommandTimeoutException) {
            // a node that died after connecting shows up as a timeout: commands wait for a reconnect
            return "timed out after " + timeoutMs + " ms" + (node.isConnected() ? "" : " (not connected: unreachable)");
        }
        if (cause instanceof RedisCommandExecutionException) {
            return "error reply: " + cause.getMessage();
        }
        if (cause instanceof RedisConnectionException) {
            return "unreachable: " + rootMessage(cause);
        }
        return rootMessage(cause);
    }

    /** Whether the command may have been applied although the caller saw an error. */
    static boolean outcomeUnknown(Throwable error) {
        Throwable cause = unwrap(error);
        return !(cause instanceof RedisCommandExecutionException) && !(cause instanceof RedisConnectionException);
    }

    static Throwable unwrap(Throwable error) {
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
    static RuntimeException forCaller(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof LockLostException lost) {
            LockLostException copy = new LockLostException(lost.lockName(), lost.fencingToken(), lost.getMessage());
            copy.initCause(lost);
            return copy;
        }
        if (cause instanceof LockBackendException backend) {
            return new LockBackendException(backend.getMessage(), backend);
        }
        if (cause instanceof CancellationException cancelled) {
            return cancelled;
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new LockBackendException(rootMessage(cause), cause);
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null ? root.getClass().getSimpleName() : message;
    }
}
