package dev.dlock;

/**
 * Told when a hold is lost while its owner still believes it holds the lock (see
 * {@link LockLostException}). Called on a dlock thread, never while a dlock lock of the client is
 * being acquired or released on that thread; it should return quickly.
 */
@FunctionalInterface
public interface LockListener {

    /**
     * Called once for each lost hold.
     *
     * @param lost what was lost: the lock name, the hold's fencing token and why
     */
    void onLockLost(LockLostException lost);
}
