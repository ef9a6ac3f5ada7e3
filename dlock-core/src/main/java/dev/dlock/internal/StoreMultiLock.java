package dev.dlock.internal;

import dev.dlock.DistributedLock;
import dev.dlock.LockHandle;
import dev.dlock.HoldInfo;
import dev.dlock.LockInfo;
import dev.dlock.internal.settings.Validation;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Several reentrant locks taken as one: all of them or none. Where the store can (PostgreSQL),
 * every name is taken in one step ({@link AllAtOnce}): all or none at once, nothing held while it
 * waits. Elsewhere the names are always taken in one order (sorted; {@link OneByOne}, or
 * {@link MultiAcquire} for handles), so processes that ask for overlapping sets in different
 * orders cannot deadlock: whoever holds the first name of the overlap is the only one who can go
 * on to the next. An acquire that cannot take some name (busy within the wait, interrupted, Redis
 * failing) gives back the names it took before it returns. Each name is an ordinary lock
 * ({@link StoreLock}): its own lease, watchdog renewal, token and wake-ups, on every topology
 * (names in different Cluster slots included). Thread-bound holds re-enter names the thread holds
 * already.
 */
public final class StoreMultiLock implements DistributedLock {

    private static final long WAIT_FOREVER = -1;

    private final LockEngine engine;
    private final List<LockTarget> targets;
    private final List<DistributedLock> locks;
    private final String name;
    private final OneByOne oneByOne;

    public StoreMultiLock(LockEngine engine, String... names) {
        if (names == null || names.length == 0) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock name, got none");
        }
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(Validation.lockName(name))) {
                throw new IllegalArgumentException("lock name '" + name + "' is given twice to the multi-lock "
                        + List.of(names));
            }
        }
        List<String> sorted = seen.stream().sorted().toList();
        this.engine = engine;
        this.targets = sorted.stream().map(engine::target).toList();
        this.locks = sorted.stream().map(each -> StoreLock.reentrant(engine, each)).toList();
        this.name = sorted.toString();
        this.oneByOne = new OneByOne(this.name, this.locks);
    }

    /** The names, sorted (the order they are taken in), as {@code [a, b]}. */
    @Override
    public String name() {
        return name;
    }

    @Override
    public void lock() {
        if (takesAllAtOnce()) {
            atOnceUninterruptibly(engine.watchdogLeaseMs(), true, WAIT_FOREVER);
            return;
        }
        oneByOne.takeAll(DistributedLock::lock);
    }

    @Override
    public void lock(Duration lease) {
        long leaseMs = Validation.leaseMillis("lease", lease);
        if (takesAllAtOnce()) {
            atOnceUninterruptibly(leaseMs, false, WAIT_FOREVER);
            return;
        }
        oneByOne.takeAll(lock -> lock.lock(lease));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (takesAllAtOnce()) {
            AllAtOnce.take(engine, targets, engine.watchdogLeaseMs(), true, WAIT_FOREVER, true);
            return;
        }
        oneByOne.takeAllInterruptibly();
    }

    @Override
    public boolean tryLock() {
        if (takesAllAtOnce()) {
            return atOnceUninterruptibly(engine.watchdogLeaseMs(), true, 0);
        }
        return oneByOne.tryAll(lock -> lock.tryLock());
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (unit == null) {
            throw new IllegalArgumentException("time unit must not be null");
        }
        long waitNanos = time <= 0 ? 0 : Validation.waitNanos(time, unit);
        if (takesAllAtOnce()) {
            return AllAtOnce.take(engine, targets, engine.watchdogLeaseMs(), true, waitNanos, true);
        }
        long deadline = System.nanoTime() + waitNanos;
        return oneByOne.tryAllInterruptibly(lock -> lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Validation.waitNanos(wait);
        long leaseMs = Validation.leaseMillis("lease", lease);
        if (takesAllAtOnce()) {
            return AllAtOnce.take(engine, targets, leaseMs, false, waitNanos, true);
        }
        long deadline = System.nanoTime() + waitNanos;
        return oneByOne.tryAllInterruptibly(lock -> lock.tryLock(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), lease));
    }

    /**
     * Whether this acquire takes every name in one step of the store (all or none): where the store
     * can, and the thread holds none of the names yet (a re-entry goes name by name).
     */
    private boolean takesAllAtOnce() {
        return engine.takesAllAtOnce() && locks.stream().noneMatch(DistributedLock::isHeldByCurrentThread);
    }

    private boolean atOnceUninterruptibly(long leaseMs, boolean renewed, long waitNanos) {
        try {
            return AllAtOnce.take(engine, targets, leaseMs, renewed, waitNanos, false);
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible acquire was interrupted", e);
        }
    }

    /**
     * Releases one hold of every name, last name first, whatever became of the others.
     *
     * @throws IllegalMonitorStateException the current thread holds none of the names
     */
    @Override
    public void unlock() {
        unlockEach(DistributedLock::unlock);
    }

    /** Each name's last hold stays until it has been held {@code holdAtLeast}; see {@link #unlock()}. */
    @Override
    public void unlockHoldingAtLeast(Duration holdAtLeast) {
        Validation.minimumHoldNanos(holdAtLeast);
        unlockEach(lock -> lock.unlockHoldingAtLeast(holdAtLeast));
    }

    private void unlockEach(Consumer<DistributedLock> unlockOne) {
        List<RuntimeException> failures = new ArrayList<>();
        int notHeld = 0;
        for (int i = locks.size() - 1; i >= 0; i--) {
            try {
                unlockOne.accept(locks.get(i));
            } catch (IllegalMonitorStateException e) {
                notHeld++;
                failures.add(e);
            } catch (RuntimeException e) {
                failures.add(0, e);
            }
        }
        if (failures.isEmpty()) {
            return;
        }
        if (notHeld == locks.size()) {
            throw new IllegalMonitorStateException("multi-lock " + name + " is not held by the current thread '"
                    + Thread.currentThread().getName() + "'");
        }
        RuntimeException first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        throw first;
    }

    @Override
    public Condition newCondition() {
        return locks.get(0).newCondition();
    }

    /** Frees every name whoever holds it: true when any was held. */
    @Override
    public boolean forceUnlock() {
        boolean any = false;
        for (DistributedLock lock : locks) {
            any |= lock.forceUnlock();
        }
        return any;
    }

    @Override
    public boolean isLocked() {
        return info().isLocked();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return locks.stream().allMatch(DistributedLock::isHeldByCurrentThread);
    }

    /** The thread holds the multi-lock as often as it holds its least held name. */
    @Override
    public int getHoldCount() {
        return locks.stream().mapToInt(DistributedLock::getHoldCount).min().orElse(0);
    }

    @Override
    public Duration remainingLease() {
        return info().remainingLease();
    }

    /** The highest of the names' tokens; throws as {@link DistributedLock#fencingToken()} if any name is not held. */
    @Override
    public long fencingToken() {
        long highest = 0;
        for (DistributedLock lock : locks) {
            highest = Math.max(highest, lock.fencingToken());
        }
        return highest;
    }

    /**
     * The names summed up, read in parallel: locked when any name is held; holder and hold count of
     * the first held name; the shortest lease left and the highest token of the held names; the
     * most waiting clients of any; the holds of every name, name after name.
     */
    @Override
    public LockInfo info() {
        List<CompletableFuture<LockInfo>> reads = targets.stream()
                .map(target -> engine.inspect(target, LockKind.REENTRANT)).toList();
        List<LockInfo> infos = Blocking.awaitUninterruptibly(CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .thenApply(done -> reads.stream().map(CompletableFuture::join).toList()));
        List<LockInfo> held = infos.stream().filter(LockInfo::isLocked).toList();
        String keys = String.join(" ", targets.stream().map(LockTarget::key).toList());
        long waiting = infos.stream().mapToLong(LockInfo::waitingClients).max().orElse(0);
        if (held.isEmpty()) {
            return new LockInfo(name, keys, Optional.empty(), 0, Duration.ZERO, 0, waiting, Duration.ZERO, List.of(), 0);
        }
        List<HoldInfo> holds = held.stream().flatMap(info -> info.holds().stream()).toList();
        return new LockInfo(name, keys, held.get(0).holder(), held.get(0).holdCount(),
                held.stream().map(LockInfo::remainingLease).min(Duration::compareTo).orElseThrow(),
                held.stream().mapToLong(LockInfo::fencingToken).max().orElseThrow(), waiting,
                held.stream().map(LockInfo::heldFor).max(Duration::compareTo).orElseThrow(), holds, 0);
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync() {
        if (engine.takesAllAtOnce()) {
            return HandleAcquire.untilAcquired(AllAtOnce.handle(engine, name, targets, engine.watchdogLeaseMs(), true,
                    WAIT_FOREVER));
        }
        return HandleAcquire.untilAcquired(acquireAll(lock -> MultiAcquire.step(lock.acquireAsync())));
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration lease) {
        long leaseMs = Validation.leaseMillis("lease", lease);
        if (engine.takesAllAtOnce()) {
            return HandleAcquire.untilAcquired(AllAtOnce.handle(engine, name, targets, leaseMs, false, WAIT_FOREVER));
        }
        return HandleAcquire.untilAcquired(acquireAll(lock -> MultiAcquire.step(lock.acquireAsync(lease))));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        long waitNanos = Validation.waitNanos(wait);
        if (engine.takesAllAtOnce()) {
            return AllAtOnce.handle(engine, name, targets, engine.watchdogLeaseMs(), true, waitNanos);
        }
        long deadline = System.nanoTime() + waitNanos;
        return acquireAll(lock -> lock.tryAcquireAsync(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease) {
        long waitNanos = Validation.waitNanos(wait);
        long leaseMs = Validation.leaseMillis("lease", lease);
        if (engine.takesAllAtOnce()) {
            return AllAtOnce.handle(engine, name, targets, leaseMs, false, waitNanos);
        }
        long deadline = System.nanoTime() + waitNanos;
        return acquireAll(lock -> lock.tryAcquireAsync(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), lease));
    }

    /** Takes the names one after the other with handles; cancelling the result stops and gives back. */
    private CompletableFuture<Optional<LockHandle>> acquireAll(
            Function<DistributedLock, CompletableFuture<Optional<LockHandle>>> acquireOne) {
        return new MultiAcquire(name, locks, acquireOne).start();
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + ", multi-lock]";
    }
}
