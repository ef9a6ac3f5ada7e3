package dev.dlock.spring;

import dev.dlock.LockException;
import java.time.Duration;

/**
 * A method annotated with {@link WithLock @WithLock} (with
 * {@code onBusy = THROW}, the default) was not called because its lock stayed held by someone
 * else for the whole {@link WithLock#waitTime() wait}, or the waiting thread was
 * interrupted. The method did not run.
 *
 * <p>It is a {@link LockException}, as {@link dev.dlock.LockBackendException} (Redis failing) is:
 * {@code catch (LockException e)} handles both.
 */
public class LockBusyException extends LockException {
    private static final long serialVersionUID = 1L;

    /** The busy lock's name. */
    private final String lockName;
    /** How long the caller waited. */
    private final Duration waited;

    /**
     * @param lockName the lock's name, as the key expression gave it
     * @param waited   how long the caller waited for it
     * @param message  the full message
     */
    public LockBusyException(String lockName, Duration waited, String message) {
        super(message, null);
        this.lockName = lockName;
        this.waited = waited;
    }

    /**
     * The lock that was busy.
     *
     * @return its name, as the key expression gave it
     */
    public String lockName() {
        return lockName;
    }

    /**
     * How long the caller waited before giving up.
     *
     * @return the annotation's wait time ({@link Duration#ZERO} for one attempt)
     */
    public Duration waited() {
        return waited;
    }
}
