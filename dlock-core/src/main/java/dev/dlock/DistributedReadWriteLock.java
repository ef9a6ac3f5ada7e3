package dev.dlock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A pair of locks of one name shared by every process on the same store (Redis, Redlock nodes, memory, PostgreSQL) and
 * key prefix: many readers at a time, or one writer. Both sides are {@link DistributedLock}s with
 * the same leases, watchdog, pub/sub waiting, fencing tokens, handles and {@code info()} as the
 * reentrant lock.
 *
 * <h2>Policy: writers first</h2>
 * A writer that has to wait for readers (or for another writer) marks the lock, and new readers
 * wait behind the mark. So a writer waits at most for the read holds in progress when it came,
 * never for a stream of new readers. The other way round, readers can wait behind a stream of
 * writers. The mark lasts while the writer waits: it leaves it when it gets the lock, times out,
 * is interrupted or cancelled; if its process dies, the mark lapses after
 * {@link LockClientBuilder#waiterTimeout(java.time.Duration) the waiter timeout}.
 *
 * <h2>Reentrancy, downgrade, no upgrade</h2>
 * Both sides are reentrant per thread. A thread holding the write lock may take the read lock
 * (downgrade): after it unlocks the write lock it keeps reading, and other readers may join. A
 * thread holding only the read lock that asks for the write lock gets an
 * {@link IllegalMonitorStateException} at once, without a call to the store: the upgrade would wait
 * for its own read hold forever. Handles ({@link DistributedLock#acquireAsync()}) are not
 * thread-bound and are neither checked for upgrades nor granted downgrades.
 *
 * <h2>Leases and tokens</h2>
 * Every read hold and the write hold has its own lease (the store keeps each lease end in the lock's
 * hash; the key lives as long as the longest), renewed by the watchdog like any other hold. Every
 * fresh hold, read or write, gets a fencing token greater than every token handed out before for
 * this name, so a resource can tell a write that happened after a read.
 *
 * <h2>The views</h2>
 * {@code readLock().isLocked()} tells whether anyone reads, {@code writeLock().isLocked()}
 * whether anyone writes. {@code readLock().info()} sums up the readers: the hold count of all of
 * them, the highest token, the lease of the longest, and one reader as holder.
 * {@code forceUnlock()} on either side frees the whole lock: writer and every reader.
 *
 * <p>Not for implementation outside dlock: dlock's {@link LockClient} hands out its implementations, and
 * methods may be added.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /**
     * The lock's name.
     *
     * @return the name given to {@link LockClient#getReadWriteLock(String)}
     */
    String name();

    /**
     * The shared side: held by any number of threads and processes while no one writes.
     *
     * @return the read lock; the same object on every call
     */
    @Override
    DistributedLock readLock();

    /**
     * The exclusive side: held by one thread (or handle) while no one reads.
     *
     * @return the write lock; the same object on every call
     */
    @Override
    DistributedLock writeLock();
}
