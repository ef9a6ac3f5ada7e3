package dev.dlock.internal.observe;

import dev.dlock.LockKind;
import dev.dlock.LockObserver;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's {@link LockObserver}s behind one, so that none can break locking: each call goes to
 * every observer in the order they were added, and whatever one throws is caught and logged (WARN
 * the first time for each method, DEBUG after that) before the next is called. With several
 * observers, {@link #acquireStarted} hands back each one's own value.
 */
public final class GuardedObserver implements LockObserver {

    private static final Logger LOG = LoggerFactory.getLogger(GuardedObserver.class);

    /** One bit per method that has failed already (logged at WARN once). */
    private enum Method {
        ACQUIRE_STARTED, WAIT_STARTED, WAIT_ENDED, ACQUIRE_FINISHED, HOLD_STARTED, HOLD_ENDED, LOST, RENEWAL_ROUND,
        RENEWAL_BATCH, SCRIPT_CALL
    }

    private final LockObserver[] observers;
    private final AtomicInteger failedMethods = new AtomicInteger();

    private GuardedObserver(List<LockObserver> observers) {
        this.observers = observers.toArray(LockObserver[]::new);
    }

    /** The observers behind one guard; null when there are none. */
    public static GuardedObserver of(List<LockObserver> observers) {
        return observers.isEmpty() ? null : new GuardedObserver(observers);
    }

    @Override
    public Object acquireStarted(LockKind kind, String lockName) {
        if (observers.length == 1) {
            return startOne(observers[0], kind, lockName);
        }
        Object[] started = new Object[observers.length];
        for (int i = 0; i < observers.length; i++) {
            started[i] = startOne(observers[i], kind, lockName);
        }
        return started;
    }

    private Object startOne(LockObserver observer, LockKind kind, String lockName) {
        try {
            return observer.acquireStarted(kind, lockName);
        } catch (Throwable e) {
            failed(Method.ACQUIRE_STARTED, observer, e);
            return null;
        }
    }

    @Override
    public void acquireFinished(LockKind kind, String lockName, AcquireOutcome outcome, long waitNanos, Object started) {
        for (int i = 0; i < observers.length; i++) {
            Object own = observers.length == 1 ? started : ((Object[]) started)[i];
            try {
                observers[i].acquireFinished(kind, lockName, outcome, waitNanos, own);
            } catch (Throwable e) {
                failed(Method.ACQUIRE_FINISHED, observers[i], e);
            }
        }
    }

    @Override
    public void waitStarted(LockKind kind, String lockName) {
        for (LockObserver observer : observers) {
            try {
                observer.waitStarted(kind, lockName);
            } catch (Throwable e) {
                failed(Method.WAIT_STARTED, observer, e);
            }
        }
    }

    @Override
    public void waitEnded(LockKind kind, String lockName) {
        for (LockObserver observer : observers) {
            try {
                observer.waitEnded(kind, lockName);
            } catch (Throwable e) {
                failed(Method.WAIT_ENDED, observer, e);
            }
        }
    }

    @Override
    public void holdStarted(LockKind kind, String lockName) {
        for (LockObserver observer : observers) {
            try {
                observer.holdStarted(kind, lockName);
            } catch (Throwable e) {
                failed(Method.HOLD_STARTED, observer, e);
            }
        }
    }

    @Override
    public void holdEnded(LockKind kind, String lockName, long heldNanos, HoldEnding ending) {
        for (LockObserver observer : observers) {
            try {
                observer.holdEnded(kind, lockName, heldNanos, ending);
            } catch (Throwable e) {
                failed(Method.HOLD_ENDED, observer, e);
            }
        }
    }

    @Override
    public void lost(LockKind kind, String lockName, LossCause cause) {
        for (LockObserver observer : observers) {
            try {
                observer.lost(kind, lockName, cause);
            } catch (Throwable e) {
                failed(Method.LOST, observer, e);
            }
        }
    }

    @Override
    public void renewalRound(int holds, long lagNanos) {
        for (LockObserver observer : observers) {
            try {
                observer.renewalRound(holds, lagNanos);
            } catch (Throwable e) {
                failed(Method.RENEWAL_ROUND, observer, e);
            }
        }
    }

    @Override
    public void renewalBatch(int renewed, int failed) {
        for (LockObserver observer : observers) {
            try {
                observer.renewalBatch(renewed, failed);
            } catch (Throwable e) {
                failed(Method.RENEWAL_BATCH, observer, e);
            }
        }
    }

    @Override
    public void scriptCall(String script, long nanos, boolean ok) {
        for (LockObserver observer : observers) {
            try {
                observer.scriptCall(script, nanos, ok);
            } catch (Throwable e) {
                failed(Method.SCRIPT_CALL, observer, e);
            }
        }
    }

    /** Rethrows what the JVM cannot carry on after; logs the rest, at WARN once per method. */
    private void failed(Method method, LockObserver observer, Throwable failure) {
        if (failure instanceof VirtualMachineError fatal) {
            throw fatal;
        }
        int bit = 1 << method.ordinal();
        int before = failedMethods.getAndUpdate(bits -> bits | bit);
        if ((before & bit) == 0) {
            LOG.warn("lock observer {} failed in {}; ignored (later failures of this method are logged at DEBUG)",
                    observer, method.name().toLowerCase(java.util.Locale.ROOT), failure);
        } else {
            LOG.debug("lock observer {} failed in {}; ignored", observer, method, failure);
        }
    }

    @Override
    public String toString() {
        return "GuardedObserver" + List.of(observers);
    }
}
