package dev.dlock;

/**
 * The caller's hold on a lock ended without the caller releasing it: the lease expired (an
 * explicit lease is never renewed; a watchdog lease could not be renewed in time) or an operator
 * force-released the lock. Another owner may hold it now; dlock never touches that owner's lock.
 *
 * <p>It is a distinct subtype of {@link IllegalMonitorStateException} so that code written against
 * {@link java.util.concurrent.locks.Lock} still sees a monitor-state failure from {@code unlock()},
 * while code that cares can tell "I lost it" from "I never held it".
 */
public class LockLostException extends IllegalMonitorStateException {
    @java.io.Serial
    private static final long serialVersionUID = 1L;

    /** The name of the lock that was lost. */
    private final String lockName;
    /** The fencing token of the hold that was lost. */
    private final long fencingToken;

    /**
     * Creates the exception; dlock throws it, applications normally only catch it.
     *
     * @param lockName     the name of the lock that was lost
     * @param fencingToken the fencing token of the hold that was lost
     * @param message      what happened, for people
     */
    public LockLostException(String lockName, long fencingToken, String message) {
        super(message);
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    /**
     * The lock's name.
     *
     * @return the name of the lock that was lost
     */
    public String lockName() {
        return lockName;
    }

    /**
     * The token of the lost hold.
     *
     * @return the fencing token of the hold that was lost; a resource must reject it from now on
     */
    public long fencingToken() {
        return fencingToken;
    }
}
