package dev.dlock.internal.store;

import dev.dlock.LockBackendException;
import dev.dlock.LockLostException;
import dev.dlock.NodeError;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns a store's failures ({@link NodeFailure}) into the exceptions and messages users see. */
public final class Failures {

    private Failures() {
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
            LockLostException copy = new LockLostException(lost.lockName(), lost.fencingToken(), lost.reason(), lost.getMessage());
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
