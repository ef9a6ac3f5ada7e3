package dev.dlock.internal.kinds;

import dev.dlock.DistributedLock;
import dev.dlock.DistributedReadWriteLock;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.store.LockKind;

/** The read and write sides of one name: two {@link StoreLock}s of kinds READ and WRITE. */
public final class StoreReadWriteLock implements DistributedReadWriteLock {

    private final StoreLock read;
    private final StoreLock write;

    public StoreReadWriteLock(LockEngine engine, String name) {
        this.read = new StoreLock(engine, name, LockKind.READ);
        this.write = new StoreLock(engine, name, LockKind.WRITE);
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
