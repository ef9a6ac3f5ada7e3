package dev.dlock.testing;

/**
 * A RESP error reply (a line starting with {@code -}) returned by the server, for example
 * {@code ERR unknown command} or {@code NOSCRIPT No matching script}.
 */
public final class RedisReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message the error text as sent by the server, without the leading {@code -} */
    public RedisReplyException(String message) {
        super(message);
    }
}
