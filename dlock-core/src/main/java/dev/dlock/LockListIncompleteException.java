package dev.dlock;

import java.util.List;

/**
 * {@link LockClient#listLocks(String)} reached some of the masters it walks but not all (a Redis
 * Cluster's masters that serve slots, a Redlock's nodes): the locks of the masters that answered are in
 * {@link #listed()}, those of the others are unknown. The message and {@link #nodeErrors()} name every
 * master that failed. Over Redlock, when a majority of the nodes answered, every lock a quorum holds
 * has a copy among them, so {@link #listed()} misses none of those.
 */
public class LockListIncompleteException extends LockBackendException {
    private static final long serialVersionUID = 1L;

    /** Not serialized: a deserialized exception lists none (the message says how many there were). */
    private final transient List<LockInfo> listed;

    /**
     * @param message    which masters failed and how many answered
     * @param cause      the first master's failure, or null
     * @param listed     the held locks found on the masters that answered, sorted by name
     * @param nodeErrors how each master that failed failed
     * @throws NullPointerException if {@code listed} or {@code nodeErrors} is null or holds null
     */
    public LockListIncompleteException(String message, Throwable cause, List<LockInfo> listed,
                                       List<NodeError> nodeErrors) {
        super(message, cause, null, nodeErrors);
        this.listed = List.copyOf(listed);
    }

    /**
     * The held locks found on the masters that answered.
     *
     * @return them sorted by name, as {@link LockClient#listLocks(String)} returns them; the locks of
     *         the masters in {@link #nodeErrors()} are missing
     */
    public List<LockInfo> listed() {
        return listed == null ? List.of() : listed;
    }
}
