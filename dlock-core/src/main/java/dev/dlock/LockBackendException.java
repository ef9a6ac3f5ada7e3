package dev.dlock;

import java.util.List;
import java.util.Optional;

/**
 * The store could not answer, or answered with an error, so dlock cannot say what it would like to
 * say. The message tells what is known and what is not, e.g. {@code "acquire outcome unknown for
 * lock 'orders' on redis://127.0.0.1:6379: timed out after 3000 ms; a best-effort release was
 * sent"}. A lock operation never reports "the store is unreachable" as {@code false}.
 *
 * <p>The same facts are there as data: {@link #lockName()} and, per failed server,
 * {@link #nodeErrors()}. On Redlock each node's own failure is also attached as a suppressed
 * exception ({@link #getSuppressed()}).
 *
 * <p>It is a {@link LockException}, as the integrations' "busy" exceptions are, so one
 * {@code catch} handles "could not have the lock" whatever the reason.
 */
public class LockBackendException extends LockException {
    private static final long serialVersionUID = 1L;

    /** The lock the failed operation was on, or null when it was on no single lock. */
    private final String lockName;
    /**
     * How each server that failed failed, in the order of the configured servers. Not serialized
     * (a deserialized exception reports none): the message names every failed server anyway.
     */
    private final transient List<NodeError> nodeErrors;

    /**
     * A failure not tied to one lock nor to known servers.
     *
     * @param message what is known and what is not
     */
    public LockBackendException(String message) {
        this(message, null, null, List.of());
    }

    /**
     * A failure not tied to one lock nor to known servers.
     *
     * @param message what is known and what is not
     * @param cause   the underlying failure, or null
     */
    public LockBackendException(String message, Throwable cause) {
        this(message, cause, null, List.of());
    }

    /**
     * A failure of an operation on a lock or on the servers.
     *
     * @param message    what is known and what is not
     * @param cause      the underlying failure, or null
     * @param lockName   the lock the operation was on, or null when it was on no single lock
     * @param nodeErrors how each server that failed failed; empty when none is known
     * @throws NullPointerException if {@code nodeErrors} is null or holds null
     */
    public LockBackendException(String message, Throwable cause, String lockName, List<NodeError> nodeErrors) {
        super(message, cause);
        this.lockName = lockName;
        this.nodeErrors = List.copyOf(nodeErrors);
    }

    /**
     * The lock whose operation failed.
     *
     * @return its name; empty when the operation was on no single lock (connecting, listing)
     */
    public Optional<String> lockName() {
        return Optional.ofNullable(lockName);
    }

    /**
     * How each server that failed during the operation failed, in the order of the configured
     * servers.
     *
     * @return the failures, possibly empty (e.g. a Redlock split vote with every node answering)
     */
    public List<NodeError> nodeErrors() {
        return nodeErrors == null ? List.of() : nodeErrors;
    }
}
