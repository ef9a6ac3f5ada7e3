package dev.dlock.internal.observe;

import dev.dlock.LockObserver.AcquireOutcome;
import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;

/**
 * What the client's {@link LockEvents} follow of one acquisition: when it started, whether it
 * waits, where it was called from, and its observers' own value; {@link #OFF} when nothing is
 * followed (no observer, no slow-lock warnings, or a re-entry).
 * {@link dev.dlock.internal.acquire.Acquisition} only says when it starts waiting and how it ends.
 */
public final class AcquireTrace {

    public static final AcquireTrace OFF = new AcquireTrace(null, null, null, "", 0, false, null, null);

    private final LockEvents events;
    public final LockTarget target;
    public final LockKind kind;
    /** The recorded holder of the acquiring thread ({@link ClientIdentity#holderDescription()}). */
    public final String holder;
    public final long startNanos;
    /** Whether the acquisition had time to wait: a refusal then ends it as timed out, not busy. */
    private final boolean mayWait;
    public final StackTraceElement site;
    public final Object observed;
    private volatile boolean waiting;
    private volatile boolean finished;
    /** Whether the slow-wait warning was logged for it. */
    public volatile boolean reportedSlow;

    public AcquireTrace(LockEvents events, LockTarget target, LockKind kind, String holder, long startNanos, boolean mayWait,
                 StackTraceElement site, Object observed) {
        this.events = events;
        this.target = target;
        this.kind = kind;
        this.holder = holder;
        this.startNanos = startNanos;
        this.mayWait = mayWait;
        this.site = site;
        this.observed = observed;
    }

    /** The acquisition waits (for a release, a lease's end, or the store); only the first call counts. */
    public void waiting() {
        if (events != null && !waiting) {
            waiting = true;
            events.waitStarted(this);
        }
    }

    public void granted() {
        finish(AcquireOutcome.ACQUIRED);
    }

    /** The acquisition ended without a grant: cancelled (interrupted), or its wait (if any) is over. */
    public void gaveUp(boolean cancelled) {
        finish(cancelled ? AcquireOutcome.INTERRUPTED : mayWait ? AcquireOutcome.TIMED_OUT : AcquireOutcome.BUSY);
    }

    public void failed() {
        finish(AcquireOutcome.ERROR);
    }

    private void finish(AcquireOutcome outcome) {
        if (events != null && !finished) {
            finished = true;
            events.acquireFinished(this, outcome, waiting);
        }
    }
}
