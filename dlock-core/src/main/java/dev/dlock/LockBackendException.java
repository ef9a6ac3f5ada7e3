package dev.dlock;

/**
 * Redis could not answer, or answered with an error, so dlock cannot say what it would like to
 * say. The message tells what is known and what is not, e.g. {@code "acquire outcome unknown for
 * lock 'orders' on redis://127.0.0.1:6379: timed out after 3000 ms; a best-effort release was
 * sent"}. A lock operation never reports "Redis is unreachable" as {@code false}.
 */
public class LockBackendException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockBackendException(String message) {
        super(message);
    }

    public LockBackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
