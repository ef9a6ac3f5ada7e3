package dev.dlock.internal;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.internal.store.LockKind;

/** The read and write sides of one name: two {@link RedisLock}s of kinds READ and WRITE. */
public final class RedisReadWriteLock implements DistributedReadWriteLock {

    private final RedisLock read;
    private final RedisLock write;

    public RedisReadWriteLock(LockEngine engine, String name) {
        this.read = new RedisLock(engine, name, LockKind.READ);
        this.write = new RedisLock(engine, name, LockKind.WRITE);
    }

    @Override
    public String name() {
        return read.name();
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + name() + "]";
    }
}
