package dev.dlock.spring.integration;

import dev.dlock.DistributedLock;
import dev.dlock.LockHandle;
import dev.dlock.LockClient;
import dev.dlock.LockInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The lock {@link DlockLockRegistry} hands out: a dlock {@link DistributedLock} that is also
 * Spring Integration's {@link org.springframework.integration.support.locks.DistributedLock}
 * (whose {@code lock(Duration)} and {@code tryLock(Duration, Duration)} take the lease, as
 * dlock's do). Every method is the dlock lock's; see {@link DistributedLock} for ownership,
 * leases, the watchdog and failures. Two are equal when they are of the same name and client.
 */
public final class DlockRegistryLock implements DistributedLock,
        org.springframework.integration.support.locks.DistributedLock {
    private final LockClient client;
    private final DistributedLock lock;

    DlockRegistryLock(LockClient client, DistributedLock lock) {
        this.client = client;
        this.lock = lock;
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public void lock() {
        lock.lock();
    }

    @Override
    public void lock(Duration lease) {
        lock.lock(lease);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        return lock.tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(time, unit);
    }

    @Override
    public boolean tryLock(Duration wait) throws InterruptedException {
        return lock.tryLock(wait);
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        return lock.tryLock(wait, lease);
    }

    @Override
    public void unlock() {
        lock.unlock();
    }

    @Override
    public void unlockHoldingAtLeast(Duration holdAtLeast) {
        lock.unlockHoldingAtLeast(holdAtLeast);
    }

    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    @Override
    public boolean forceUnlock() {
        return lock.forceUnlock();
    }

    @Override
    public boolean isLocked() {
        return lock.isLocked();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    @Override
    public int getHoldCount() {
        return lock.getHoldCount();
    }

    @Override
    public Duration remainingLease() {
        return lock.remainingLease();
    }

    @Override
    public long fencingToken() {
        return lock.fencingToken();
    }

    @Override
    public LockInfo info() {
        return lock.info();
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        return lock.acquire();
    }

    @Override
    public LockHandle acquire(Duration lease) throws InterruptedException {
        return lock.acquire(lease);
    }

    @Override
    public LockHandle acquireUninterruptibly() {
        return lock.acquireUninterruptibly();
    }

    @Override
    public Optional<LockHandle> tryAcquire() {
        return lock.tryAcquire();
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException {
        return lock.tryAcquire(wait);
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        return lock.tryAcquire(wait, lease);
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync() {
        return lock.acquireAsync();
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration lease) {
        return lock.acquireAsync(lease);
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        return lock.tryAcquireAsync(wait);
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease) {
        return lock.tryAcquireAsync(wait, lease);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DlockRegistryLock that && that.client == client && that.lock.name().equals(lock.name());
    }

    @Override
    public int hashCode() {
        return lock.name().hashCode();
    }

    @Override
    public String toString() {
        return "DlockRegistryLock[" + lock.name() + "]";
    }
}
