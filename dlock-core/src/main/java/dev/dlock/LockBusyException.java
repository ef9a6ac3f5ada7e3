package dev.dlock;

import java.time.Duration;

/**
 * The caller's code did not run because its lock stayed held by someone else for the whole wait it
 * was given: what an integration throws where a {@code boolean} cannot be returned (the Spring
 * starter's {@code @WithLock(onBusy = THROW)}, which its web handler answers with {@code 409
 * Conflict}). dlock's own acquires report "busy" as {@code false} or an empty {@code Optional}, never
 * with this exception.
 *
 * <p>It is a {@link LockException}, as {@link LockBackendException} (the store failing) is:
 * {@code catch (LockException e)} handles both. An interrupted wait is not "busy": it is reported as an
 * interrupt.
 */
public class LockBusyException extends LockException {
    @java.io.Serial
    private static final long serialVersionUID = 1L;

    /** The busy lock's name. */
    private final String lockName;
    /** How long the caller waited. */
    private final Duration waited;

    /**
     * @param lockName the lock's name
     * @param waited   how long the caller waited for it ({@link Duration#ZERO} for one attempt)
     * @param message  what happened, for people
     * @throws IllegalArgumentException the name or the wait is null, or the wait is negative
     */
    public LockBusyException(String lockName, Duration waited, String message) {
        super(message, null);
        if (lockName == null || waited == null || waited.isNegative()) {
            throw new IllegalArgumentException("LockBusyException needs a lock name and a wait of zero or more, got "
                    + lockName + " and " + waited);
        }
        this.lockName = lockName;
        this.waited = waited;
    }

    /**
     * The lock that was busy.
     *
     * @return its name
     */
    public String lockName() {
        return lockName;
    }

    /**
     * How long the caller waited before giving up.
     *
     * @return the wait ({@link Duration#ZERO} for one attempt)
     */
    public Duration waited() {
        return waited;
    }
}
