package dev.dlock;

/**
 * A lock could not be had, or let go, as asked, and the caller's code did not run under it (or its
 * outcome is unknown): the common type of {@link LockBackendException} (the store failed or did not
 * answer) and of the integrations' "busy" exceptions, such as the Spring starter's
 * {@code LockBusyException} (the lock stayed held elsewhere for the whole wait). Catch it to handle
 * both at once; catch the subtypes to tell them apart.
 *
 * <p>{@link LockLostException} is not one: it says a hold ended without its owner's release, and
 * stays an {@link IllegalMonitorStateException} for code written against
 * {@link java.util.concurrent.locks.Lock}.
 */
public class LockException extends RuntimeException {
    @java.io.Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened, for people
     * @param cause   the underlying failure, or null
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
