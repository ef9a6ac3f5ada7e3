package dev.dlock.internal.kinds;

import dev.dlock.DistributedLock;
import dev.dlock.HoldInfo;
import dev.dlock.LockHandle;
import dev.dlock.LockInfo;
import dev.dlock.LockLostException;
import dev.dlock.internal.Blocking;
import dev.dlock.internal.LockEngine;
import dev.dlock.internal.settings.Validation;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;
import java.util.function.Supplier;

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
    private final List<StoreLock> locks;
    private final String name;
    private final List<String> names;
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
        this.locks = sorted.stream().map(each -> new StoreLock(engine, each, LockKind.REENTRANT)).toList();
        this.names = sorted;
        this.name = "multi-lock" + sorted;
        this.oneByOne = new OneByOne(this.name, List.copyOf(this.locks));
    }

    /** A label for messages, {@code multi-lock[a, b]}: the names sorted (the order they are taken in). */
    @Override
    public String name() {
        return name;
    }

    /** The names, sorted (the order they are taken in). */
    @Override
    public List<String> names() {
        return names;
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
        return oneByOne.tryAll(0, (lock, waitLeft) -> lock.tryLock());
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Validation.waitNanos(time, unit));
    }

    @Override
    public boolean tryLock(Duration wait) throws InterruptedException {
        return tryLock(Validation.waitNanos(wait));
    }

    private boolean tryLock(long waitNanos) throws InterruptedException {
        if (takesAllAtOnce()) {
            return AllAtOnce.take(engine, targets, engine.watchdogLeaseMs(), true, waitNanos, true);
        }
        return oneByOne.tryAllInterruptibly(waitNanos, (lock, waitLeft) -> lock.tryLock(waitLeft));
    }

    @Override
    public boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = Validation.waitNanos(wait);
        long leaseMs = Validation.leaseMillis("lease", lease);
        if (takesAllAtOnce()) {
            return AllAtOnce.take(engine, targets, leaseMs, false, waitNanos, true);
        }
        return oneByOne.tryAllInterruptibly(waitNanos, (lock, waitLeft) -> lock.tryLock(waitLeft, lease));
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
            } catch (LockLostException e) {
                failures.add(0, e);
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
            throw new IllegalMonitorStateException(name + " is not held by the current thread '"
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
            return LockInfo.free(name, keys, waiting);
        }
        List<HoldInfo> holds = held.stream().flatMap(info -> info.holds().stream()).toList();
        return LockInfo.of(name, keys, Optional.of(dev.dlock.LockKind.REENTRANT), held.get(0).holder(), held.get(0).holdCount(),
                held.stream().map(LockInfo::remainingLease).min(Duration::compareTo).orElseThrow(),
                held.stream().mapToLong(LockInfo::fencingToken).max().orElseThrow(), waiting,
                held.stream().map(LockInfo::heldFor).max(Duration::compareTo).orElseThrow(), holds, 0);
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync() {
        return engine.callbacks().handle(HandleAcquire.untilAcquired(startHandle(engine.watchdogLeaseMs(), true, WAIT_FOREVER)));
    }

    @Override
    public CompletableFuture<LockHandle> acquireAsync(Duration lease) {
        long leaseMs = Validation.leaseMillis("lease", lease);
        return engine.callbacks().handle(HandleAcquire.untilAcquired(startHandle(leaseMs, false, WAIT_FOREVER)));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait) {
        return engine.callbacks().maybeHandle(startHandle(engine.watchdogLeaseMs(), true, Validation.waitNanos(wait)));
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(Duration wait, Duration lease) {
        long waitNanos = Validation.waitNanos(wait);
        return engine.callbacks().maybeHandle(startHandle(Validation.leaseMillis("lease", lease), false, waitNanos));
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        return awaitHandle(this::acquireAsync);
    }

    @Override
    public LockHandle acquire(Duration lease) throws InterruptedException {
        return awaitHandle(() -> acquireAsync(lease));
    }

    @Override
    public LockHandle acquireUninterruptibly() {
        return Blocking.awaitUninterruptibly(acquireAsync());
    }

    @Override
    public Optional<LockHandle> tryAcquire() {
        return Blocking.awaitUninterruptibly(tryAcquireAsync(Duration.ZERO));
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait) throws InterruptedException {
        return awaitHandle(() -> tryAcquireAsync(wait));
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        return awaitHandle(() -> tryAcquireAsync(wait, lease));
    }

    /**
     * The blocking form of a handle acquire: interrupted, the acquire is cancelled, which gives back
     * whatever it took or is granted as the interrupt comes, and the interrupt is thrown.
     */
    private <T> T awaitHandle(Supplier<CompletableFuture<T>> acquire) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + name);
        }
        CompletableFuture<T> started = acquire.get();
        try {
            return started.get();
        } catch (ExecutionException e) {
            throw Failures.forCaller(e);
        } catch (InterruptedException interrupt) {
            started.cancel(false);
            throw interrupt;
        }
    }

    /**
     * A handle on every name: in one step where the store can, else name after name, all within the
     * one wait (which also bounds the give-back when a name is not granted). Cancelling the result
     * stops and gives back.
     *
     * @param waitNanos how long to wait; negative: without bound
     */
    private CompletableFuture<Optional<LockHandle>> startHandle(long leaseMs, boolean renewed, long waitNanos) {
        engine.requireOpen();
        if (engine.takesAllAtOnce()) {
            return AllAtOnce.handle(engine, name, targets, leaseMs, renewed, waitNanos);
        }
        long deadline = System.nanoTime() + waitNanos;
        return new MultiAcquire(engine.callbacks(), name, locks, waitNanos, lock -> lock.startHandle(leaseMs, renewed,
                waitNanos < 0 ? WAIT_FOREVER : Math.max(0, deadline - System.nanoTime()))).start();
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + "]";
    }
}
