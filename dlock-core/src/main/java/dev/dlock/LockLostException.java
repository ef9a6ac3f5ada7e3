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
    /** Why it was lost. */
    private final LockObserver.LossCause reason;

    /**
     * Creates the exception; dlock throws it, applications normally only catch it.
     *
     * @param lockName     the name of the lock that was lost
     * @param fencingToken the fencing token of the hold that was lost
     * @param reason       why it was lost
     * @param message      what happened, for people
     * @throws IllegalArgumentException the reason is null
     */
    public LockLostException(String lockName, long fencingToken, LockObserver.LossCause reason, String message) {
        super(message);
        if (reason == null) {
            throw new IllegalArgumentException("a LockLostException needs a reason");
        }
        this.lockName = lockName;
        this.fencingToken = fencingToken;
        this.reason = reason;
    }

    /**
     * Why the hold was lost, as the {@code dlock.losses} meter's {@code cause} tag says it ({@code expired},
     * {@code gone}, {@code force_released}, {@code backend_unreachable}), or {@code CLIENT_CLOSED}.
     *
     * @return the reason
     */
    public LockObserver.LossCause reason() {
        return reason;
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
