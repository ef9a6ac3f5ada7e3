package dev.dlock;

/**
 * A lock could not be had, or let go, as asked, and the caller's code did not run under it (or its
 * outcome is unknown): the common type of {@link LockBackendException} (the store failed or did not
 * answer), of {@link LockBusyException} (the lock stayed held elsewhere for the whole wait, thrown by
 * integrations such as the Spring starter) and of {@link LockInterruptedException}. Catch it to handle
 * them at once; catch the subtypes to tell them apart.
 *
 * <p>{@link LockLostException} is not one: it says a hold ended without its owner's release, and
 * stays an {@link IllegalMonitorStateException} for code written against
 * {@link java.util.concurrent.locks.Lock}; its {@link LockLostException#reason() reason()} says why.
 * Nor is a release of a hold released already: {@link IllegalMonitorStateException}, from
 * {@code unlock()}, a handle's {@code release()} and a semaphore's {@code release(handle)} alike.
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
