package dev.dlock.internal.kinds;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.internal.Blocking;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Validation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A thread-bound multi-lock acquire where the store cannot take every name in one step: the
 * names' plain locks taken one after the other, in the multi-lock's (sorted) order, and the ones
 * already taken given back, last first, when the next cannot be taken (busy within the wait,
 * interrupted, the store failing). It is apart from {@link StoreMultiLock} because it is one
 * protocol with one invariant, all or none held when it returns, shared by every blocking and
 * trying form of the API; the all-at-once path is {@link AllAtOnce}, the handle-based one
 * {@link MultiAcquire}.
 */
final class OneByOne {

    /** The multi-lock's logger: a name that could not be given back is the multi-lock's news. */
    private static final Logger LOG = LoggerFactory.getLogger(StoreMultiLock.class);
    /** A wait that every lock takes as one without bound. */
    private static final Duration UNBOUNDED_WAIT = Duration.ofSeconds(Long.MAX_VALUE);
    private static final long OVERRUN_NANOS = Settings.WAIT_OVERRUN.toNanos();

    /** One attempt on one name: false when the name could not be taken within what is left of the wait. */
    interface Attempt {
        boolean on(DistributedLock lock, Duration waitLeft) throws InterruptedException;
    }

    /** One take of one name, without a bound. */
    interface Take {
        void on(DistributedLock lock);
    }

    private final String name;
    private final List<StoreLock> locks;

    /**
     * @param name  the multi-lock's name, for messages
     * @param locks the names' plain locks, in the order they are taken
     */
    OneByOne(String name, List<StoreLock> locks) {
        this.name = name;
        this.locks = locks;
    }

    void takeAll(Take take) {
        tryAll(Validation.NO_BOUND, (lock, waitLeft) -> {
            take.on(lock);
            return true;
        });
    }

    void takeAllInterruptibly() throws InterruptedException {
        tryAllInterruptibly(Validation.NO_BOUND, (lock, waitLeft) -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    /** {@link #tryAllInterruptibly} with attempts that are not interrupted. */
    boolean tryAll(long waitNanos, Attempt attempt) {
        try {
            return tryAllInterruptibly(waitNanos, attempt);
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible attempt was interrupted", e);
        }
    }

    /**
     * Takes every name within one wait, or none. The names taken go back before this returns; with
     * a wait, their releases are waited for until the wait and {@link Settings#WAIT_OVERRUN} have
     * passed (a store that does not answer must not hold the caller longer), then go on without it.
     *
     * @param waitNanos the wait for all the names; negative: without bound
     */
    boolean tryAllInterruptibly(long waitNanos, Attempt attempt) throws InterruptedException {
        long startNanos = System.nanoTime();
        List<StoreLock> taken = new ArrayList<>();
        try {
            for (StoreLock lock : locks) {
                if (!attempt.on(lock, waitLeft(startNanos, waitNanos))) {
                    giveBack(taken, null, startNanos, waitNanos);
                    return false;
                }
                taken.add(lock);
            }
            return true;
        } catch (InterruptedException | RuntimeException e) {
            giveBack(taken, e, startNanos, waitNanos);
            throw e;
        }
    }

    /** What is left at this moment of a wait begun at {@code startNanos}; a wait without bound stays one. */
    static Duration waitLeft(long startNanos, long waitNanos) {
        return waitNanos < 0 ? UNBOUNDED_WAIT : Duration.ofNanos(Math.max(0, startNanos + waitNanos - System.nanoTime()));
    }

    /** Unlocks the names taken so far, last first; a failure is added to {@code cause}, or logged. */
    private void giveBack(List<StoreLock> taken, Throwable cause, long startNanos, long waitNanos) {
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                releases.add(taken.get(i).startUnlock());
            } catch (RuntimeException e) {
                releases.add(CompletableFuture.failedFuture(e));
            }
        }
        long answerByNanos = startNanos + waitNanos + OVERRUN_NANOS;
        for (int i = 0; i < releases.size(); i++) {
            String lockName = taken.get(taken.size() - 1 - i).name();
            try {
                if (waitNanos < 0) {
                    Blocking.awaitUninterruptibly(releases.get(i));
                } else {
                    Blocking.awaitUninterruptiblyUntil(releases.get(i), answerByNanos);
                }
            } catch (TimeoutException e) {
                report(cause, lockName, new LockBackendException("multi-lock " + name + ": the release of lock '" + lockName
                        + "' was not answered within the wait; it goes on, else the lease frees the lock", null, lockName,
                        List.of()));
            } catch (RuntimeException e) {
                report(cause, lockName, e);
            }
        }
    }

    private void report(Throwable cause, String lockName, RuntimeException failure) {
        if (cause != null) {
            cause.addSuppressed(failure);
        } else {
            LOG.warn("multi-lock {}: could not give back lock '{}' after a failed acquire; its lease frees it",
                    name, lockName, failure);
        }
    }
}
