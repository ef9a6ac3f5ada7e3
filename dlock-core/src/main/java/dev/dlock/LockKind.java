package dev.dlock;

/**
 * The kinds of lock a {@link LockClient} hands out: what {@link LockObserver} events, the meters' {@code kind}
 * tag and the Spring starter's {@code @WithLock(kind = ...)} name. Constants may be added in later versions.
 */
public enum LockKind {
    /** {@link LockClient#getLock(String)}: reentrant, not fair. */
    REENTRANT,
    /** {@link LockClient#getFairLock(String)}: reentrant, granted in request order. */
    FAIR,
    /** The read lock of {@link LockClient#getReadWriteLock(String)}: shared. */
    READ,
    /** The write lock of {@link LockClient#getReadWriteLock(String)}: exclusive. */
    WRITE,
    /** A permit of {@link LockClient#getSemaphore(String, int)}. */
    PERMIT
}
