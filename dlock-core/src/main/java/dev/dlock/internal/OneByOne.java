package dev.dlock.internal;

import dev.dlock.DistributedLock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
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

    /** One attempt on one name: false when the name could not be taken within its wait. */
    interface Attempt {
        boolean on(DistributedLock lock) throws InterruptedException;
    }

    /** One take of one name, without a bound. */
    interface Take {
        void on(DistributedLock lock);
    }

    private final String name;
    private final List<DistributedLock> locks;

    /**
     * @param name  the multi-lock's name, for messages
     * @param locks the names' plain locks, in the order they are taken
     */
    OneByOne(String name, List<DistributedLock> locks) {
        this.name = name;
        this.locks = locks;
    }

    void takeAll(Take take) {
        tryAll(lock -> {
            take.on(lock);
            return true;
        });
    }

    void takeAllInterruptibly() throws InterruptedException {
        tryAllInterruptibly(lock -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    boolean tryAll(Function<DistributedLock, Boolean> attempt) {
        try {
            return tryAllInterruptibly(attempt::apply);
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible attempt was interrupted", e);
        }
    }

    boolean tryAllInterruptibly(Attempt attempt) throws InterruptedException {
        List<DistributedLock> taken = new ArrayList<>();
        try {
            for (DistributedLock lock : locks) {
                if (!attempt.on(lock)) {
                    giveBack(taken, null);
                    return false;
                }
                taken.add(lock);
            }
            return true;
        } catch (InterruptedException | RuntimeException e) {
            giveBack(taken, e);
            throw e;
        }
    }

    /** Unlocks the names taken so far, last first; a failure is added to {@code cause}, or logged. */
    private void giveBack(List<DistributedLock> taken, Throwable cause) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).unlock();
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                } else {
                    LOG.warn("multi-lock {}: could not give back lock '{}' after a failed acquire; its lease frees it",
                            name, taken.get(i).name(), e);
                }
            }
        }
    }
}
