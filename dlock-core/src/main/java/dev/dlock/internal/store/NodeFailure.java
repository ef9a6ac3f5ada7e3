package dev.dlock.internal.store;

import dev.dlock.NodeError;

/**
 * A store node's failure in dlock's own terms: a node adapter (the Redis backend's {@code RedisNode}
 * is one) turns its client library's errors into these, so nothing above it depends on that
 * library. The original error, if any, is the cause.
 */
public final class NodeFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final NodeError.Cause kind;
    private final String address;

    /**
     * @param detail what the server or the connection said (an error reply's text, the reason a
     *               connection failed, "timed out after 300 ms")
     */
    public NodeFailure(NodeError.Cause kind, String address, String detail, Throwable cause) {
        super(detail, cause);
        this.kind = kind;
        this.address = address;
    }

    public NodeError.Cause kind() {
        return kind;
    }

    public String address() {
        return address;
    }

    /** The same failure as public data. */
    public NodeError toNodeError() {
        return new NodeError(address, kind, String.valueOf(getMessage()));
    }
}
