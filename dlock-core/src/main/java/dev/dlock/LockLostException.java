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
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long fencingToken;

    public LockLostException(String lockName, long fencingToken, String message) {
        super(message);
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    /** The name of the lock that was lost. */
    public String lockName() {
        return lockName;
    }

    /** The fencing token of the hold that was lost; a resource must reject it from now on. */
    public long fencingToken() {
        return fencingToken;
    }
}
