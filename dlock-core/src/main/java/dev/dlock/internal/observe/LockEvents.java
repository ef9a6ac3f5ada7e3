package dev.dlock.internal.observe;

import dev.dlock.LockObserver;
import dev.dlock.LockObserver.AcquireOutcome;
import dev.dlock.LockObserver.HoldEnding;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldEvents;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.settings.SlowLockSettings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the rest of the client reports about its locks, passed on to the application's
 * {@link LockObserver}s (behind a {@link GuardedObserver}) and to the {@link SlowLockWarnings}.
 * Pieces call it with their own types; it turns them into the observer's. With no observer and no
 * warnings every call returns at once, without allocating.
 */
public final class LockEvents implements HoldEvents {

    private static final StackWalker STACK = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final ProtectionDomain DLOCK_CLASSES = LockEvents.class.getProtectionDomain();

    /** Null when there is no observer. */
    private final GuardedObserver observer;
    private final SlowLockSettings slow;
    private final Ticker ticker;
    private final boolean traced;
    /** The acquisitions that wait, for the slow-wait check; null without it. */
    private final Set<AcquireTrace> waiting;
    private volatile SlowLockWarnings warnings;

    public LockEvents(List<LockObserver> observers, SlowLockSettings slow, Ticker ticker) {
        this.observer = GuardedObserver.of(observers);
        this.slow = slow;
        this.ticker = ticker;
        this.traced = observer != null || slow.any() || slow.captureAcquireSite();
        this.waiting = slow.warnsOfWaits() ? ConcurrentHashMap.newKeySet() : null;
    }

    /** Starts the periodic slow-lock check over the client's holds and waiters, if any threshold is set. */
    public void startWarnings(HoldRegistry holds, LockInspector inspector) {
        if (slow.any()) {
            warnings = new SlowLockWarnings(slow, ticker, holds, waiting == null ? Set.of() : waiting, inspector);
        }
    }

    public void stop() {
        SlowLockWarnings started = warnings;
        if (started != null) {
            started.stop();
        }
    }

    /** The client's observers, guarded (they never throw); null when there is none. */
    public LockObserver observer() {
        return observer;
    }

    /** On the acquiring thread: starts following an acquisition, unless it is a re-entry or nothing listens. */
    public AcquireTrace acquireStarted(LockTarget target, LockKind kind, String holder, long waitNanos, boolean reentry) {
        if (!traced || reentry) {
            return AcquireTrace.OFF;
        }
        StackTraceElement site = slow.captureAcquireSite() ? callerOutsideDlock() : null;
        Object observed = observer != null ? observer.acquireStarted(kind(kind), target.name()) : null;
        return new AcquireTrace(this, target, kind, holder, ticker.nanoTime(), waitNanos != 0, site, observed);
    }

    public void waitStarted(AcquireTrace trace) {
        if (waiting != null) {
            waiting.add(trace);
        }
        if (observer != null) {
            observer.waitStarted(kind(trace.kind), trace.target.name());
        }
    }

    public void acquireFinished(AcquireTrace trace, AcquireOutcome outcome, boolean waited) {
        long waitNanos = ticker.nanoTime() - trace.startNanos;
        if (waited) {
            if (waiting != null && waiting.remove(trace) && trace.reportedSlow) {
                warnings.waitEnded(trace, outcome, waitNanos);
            }
            if (observer != null) {
                observer.waitEnded(kind(trace.kind), trace.target.name());
            }
        }
        if (observer != null) {
            observer.acquireFinished(kind(trace.kind), trace.target.name(), outcome, waitNanos, trace.observed);
        }
    }

    public void holdStarted(Hold hold) {
        if (observer != null) {
            observer.holdStarted(kind(hold.kind), hold.name);
        }
    }

    /** The hold ended; only the first report of a hold counts (a loss found after its release does not). */
    public void holdEnded(Hold hold, HoldEnding ending) {
        if ((observer == null && !slow.warnsOfHolds()) || !hold.end()) {
            return;
        }
        long heldNanos = ticker.nanoTime() - hold.heldSinceNanos;
        if (hold.reportedSlow) {
            warnings.holdEnded(hold, ending, heldNanos);
        }
        if (observer != null) {
            observer.holdEnded(kind(hold.kind), hold.name, heldNanos, ending);
        }
    }

    @Override
    public void lost(Hold hold, LossCause cause) {
        if (observer != null) {
            observer.lost(kind(hold.kind), hold.name, cause);
        }
        holdEnded(hold, HoldEnding.LOST);
    }

    @Override
    public void renewalRound(int holds, long lagNanos) {
        if (observer != null) {
            observer.renewalRound(holds, lagNanos);
        }
    }

    @Override
    public void renewalBatch(int renewed, int failed) {
        if (observer != null) {
            observer.renewalBatch(renewed, failed);
        }
    }

    public static dev.dlock.LockKind kind(LockKind kind) {
        return switch (kind) {
            case REENTRANT -> dev.dlock.LockKind.REENTRANT;
            case FAIR -> dev.dlock.LockKind.FAIR;
            case READ -> dev.dlock.LockKind.READ;
            case WRITE -> dev.dlock.LockKind.WRITE;
            case PERMIT -> dev.dlock.LockKind.PERMIT;
        };
    }

    /**
     * The first frame of the current thread's stack outside dlock: not in {@code dev.dlock.internal}
     * or a package below it, nor a class of {@code dev.dlock} loaded from dlock's own jar (an
     * application's or a test's class in that package counts as outside).
     */
    public static StackTraceElement callerOutsideDlock() {
        return STACK.walk(frames -> frames.filter(frame -> !insideDlock(frame.getDeclaringClass())).findFirst()
                .map(StackWalker.StackFrame::toStackTraceElement).orElse(null));
    }

    private static boolean insideDlock(Class<?> type) {
        String pkg = type.getPackageName();
        return pkg.equals("dev.dlock.internal") || pkg.startsWith("dev.dlock.internal.")
                || (pkg.equals("dev.dlock") && type.getProtectionDomain() == DLOCK_CLASSES);
    }
}
