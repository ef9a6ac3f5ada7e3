package dev.dlock.internal.acquire;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.NodeFailure;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How one acquisition rides through store failures: which failures are worth another attempt,
 * how long to pause before it (10 ms doubling up to 1 s, never past the budget), and the
 * exception once the budget is spent. The budget is the caller's wait; without one (unbounded
 * acquires) it is the client's outage tolerance, counted from the first failure of an unbroken run.
 */
public final class OutageRetry {

    /** Error replies of a server that is loading, failing over, read-only for now or busy with a script. */
    private static final List<String> TRANSIENT_REPLIES =
            List.of("LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "NOSCRIPT");

    private static final long FIRST_DELAY_NANOS = Settings.FIRST_OUTAGE_RETRY.toNanos();
    private static final long MAX_DELAY_NANOS = Settings.MAX_OUTAGE_RETRY.toNanos();

    private final Ticker ticker;
    private final long startNanos;
    /** The caller's wait; negative: none (the tolerance applies); 0: one attempt, no retry. */
    private final long waitNanos;
    private final long toleranceNanos;
    /** What the store runs on, for the message when the acquire gives up ("Redis unreachable for ..."). */
    private final String storeName;
    /** When the current run of failures began, or -1 while the store answers. */
    private long failingSinceNanos = -1;
    private long nextDelayNanos = FIRST_DELAY_NANOS;
    /** When the last attempt was sent: a run of failures begins with the attempt that failed, not its reply. */
    private volatile long attemptNanos;
    /**
     * Set while the last attempt is unanswered; its reply and the wait's bound (on the timer's
     * thread) each try to take it, and only one does.
     */
    private final AtomicBoolean awaitingReply = new AtomicBoolean();
    /** The failure that ended the last attempt, while failures run; null while the store answers. */
    private volatile Throwable lastFailure;

    /** For an acquisition of the given wait (0: one attempt) on the context's store. */
    static OutageRetry of(AcquireContext context, long waitNanos) {
        return new OutageRetry(context.ticker(), waitNanos, context.settings().outageTolerance(),
                context.store().productName());
    }

    private OutageRetry(Ticker ticker, long waitNanos, Duration outageTolerance, String storeName) {
        this.ticker = ticker;
        this.startNanos = ticker.nanoTime();
        this.attemptNanos = startNanos;
        this.waitNanos = waitNanos;
        this.toleranceNanos = outageTolerance.toNanos();
        this.storeName = storeName;
    }

    /**
     * Whether an acquire that failed this way may simply be tried again: the connection, a timeout
     * or a server that is starting or failing over, not a reply that would come again (a key of
     * another type, a script error, missing permissions). The one place that knows the failure
     * kinds an outage produces.
     */
    public static boolean worthRetrying(Throwable failure) {
        if (failure instanceof LockBackendException backend && !backend.nodeErrors().isEmpty()) {
            // Redlock: one node's WRONGTYPE or unknown error reply is not an outage, whatever the others did
            return backend.nodeErrors().stream().allMatch(OutageRetry::isOutage);
        }
        if (failure instanceof NodeFailure nodeFailure) {
            return isOutage(nodeFailure.toNodeError());
        }
        return !(failure instanceof IllegalArgumentException) && !(failure instanceof IllegalStateException)
                && !(failure instanceof dev.dlock.LockLostException);
    }

    /** A server that is down, restarting, failing over or not yet serving: another attempt may succeed. */
    private static boolean isOutage(NodeError error) {
        return switch (error.cause()) {
            case TIMEOUT, UNREACHABLE, OTHER -> true;
            case WRONG_TYPE, REFUSED -> false;
            case ERROR_REPLY -> TRANSIENT_REPLIES.stream().anyMatch(error.message()::startsWith);
        };
    }

    /** An attempt is being sent to the store. */
    public void attempting() {
        attemptNanos = ticker.nanoTime();
        awaitingReply.set(true);
    }

    /** the store answered: a later failure starts a new run. */
    public void answered() {
        lastFailure = null;
        failingSinceNanos = -1;
        nextDelayNanos = FIRST_DELAY_NANOS;
    }

    /**
     * The pause before the next attempt after this failure, or -1 when the failure is not worth
     * retrying or the budget is spent.
     */
    public long pauseAfter(Throwable failure) {
        lastFailure = failure;
        long now = ticker.nanoTime();
        if (failingSinceNanos < 0) {
            failingSinceNanos = attemptNanos;
        }
        if (waitNanos == 0 || !worthRetrying(failure)) {
            return -1;
        }
        long left = budgetEndNanos() - now;
        if (left <= 0) {
            return -1;
        }
        long pause = Math.min(nextDelayNanos, left);
        nextDelayNanos = Math.min(MAX_DELAY_NANOS, nextDelayNanos * 2);
        return pause;
    }

    private long budgetEndNanos() {
        return waitNanos > 0 ? startNanos + waitNanos : failingSinceNanos + toleranceNanos;
    }

    /**
     * What the caller gets when the last failure ends the acquire: the failure itself after one
     * attempt or for a failure not worth retrying; else a LockBackendException saying for how long
     * the store failed, with the last failure as cause.
     */
    public RuntimeException givenUp(Throwable last) {
        if (waitNanos == 0 || !worthRetrying(last)) {
            return last instanceof RuntimeException runtime ? runtime : new LockBackendException(last.getMessage(), last);
        }
        long failedNanos = ticker.nanoTime() - failingSinceNanos;
        String span;
        if (waitNanos < 0) {
            span = storeName + " failing for " + seconds(failedNanos) + ", the client's outage tolerance of "
                    + seconds(toleranceNanos);
        } else if (failingSinceNanos - startNanos < TimeUnit.MILLISECONDS.toNanos(100)) {
            span = storeName + " unreachable for the whole wait of " + seconds(waitNanos);
        } else {
            span = storeName + " failing for the last " + seconds(failedNanos) + " of the wait of " + seconds(waitNanos);
        }
        return new LockBackendException(span + "; last failure: " + last.getMessage(), last);
    }

    /**
     * The last attempt failed: noted before its reply races the wait's bound ({@link #replied()}), so
     * that a bound that wins the race finds the failure ({@link #atBound}) and does not take the
     * attempt for a refusal.
     */
    public void failed(Throwable failure) {
        if (failingSinceNanos < 0) {
            failingSinceNanos = attemptNanos;
        }
        lastFailure = failure;
    }

    /**
     * The reply to the last attempt arrived: true unless the wait's bound took the attempt first
     * ({@link #atBound}), which makes the reply a late one, for nobody.
     */
    boolean replied() {
        return awaitingReply.compareAndSet(true, false);
    }

    /**
     * The wait's bound takes the last attempt: true when it was still unanswered, so that its reply
     * will not be taken as an answer to the caller ({@link #replied()} is then false).
     */
    private boolean cutOff() {
        return awaitingReply.compareAndSet(true, false);
    }

    /**
     * The wait's bound passed before the loop ended: what the caller is told. An attempt still
     * unanswered is taken from its reply and {@code giveBack} runs before the answer is made (so that
     * on one connection its release comes before anything the caller sends next): the outcome is
     * unknown. Else a store whose last attempt failed is failing, which is what the caller must hear,
     * not "not acquired": the failure. Else null: not acquired (refused within the wait), except for
     * a re-entry, whose one answered attempt ends it (null: nothing to tell).
     *
     * @param subject what was asked, for the message: "lock 'orders'"
     * @param reentry whether the attempt re-enters a hold (its outer hold is kept)
     * @param callerWaitNanos the caller's wait (a re-entry's too, which makes one attempt)
     */
    RuntimeException atBound(Runnable giveBack, String subject, String lockName, boolean reentry, long callerWaitNanos) {
        if (cutOff()) {
            giveBack.run();
            return overran(subject, lockName, reentry, callerWaitNanos);
        }
        Throwable failure = lastFailure;
        return failure != null && !reentry ? givenUp(failure) : null;
    }

    /**
     * What the caller gets when its wait and the {@linkplain WaitBound overrun} after it ended with
     * an attempt unanswered: the attempt's outcome is unknown, so the message says so, and what
     * becomes of a grant that may still come.
     *
     */
    private LockBackendException overran(String subject, String lockName, boolean reentry, long callerWaitNanos) {
        long unansweredNanos = ticker.nanoTime() - attemptNanos;
        Throwable before = lastFailure;
        String message = (reentry ? "re-entry" : "acquire") + " outcome unknown for " + subject + ": " + storeName
                + " did not answer within the wait of " + seconds(callerWaitNanos) + " and "
                + seconds(WaitBound.OVERRUN_NANOS) + " more (the last attempt unanswered for " + seconds(unansweredNanos)
                + ")" + (before == null ? "" : "; the attempt before failed: " + before.getMessage())
                + (reentry ? "; the outer hold is kept" : "; a best-effort release was sent");
        return new LockBackendException(message, before, lockName, List.of());
    }

    /** As the {@code dlock} command prints durations ({@code 850 ms}, {@code 20.0 s}, {@code 3m 05s}), so its messages read alike. */
    private static String seconds(long nanos) {
        long ms = TimeUnit.NANOSECONDS.toMillis(nanos);
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        return s < 3600 ? String.format(java.util.Locale.ROOT, "%dm %02ds", s / 60, s % 60)
                : String.format(java.util.Locale.ROOT, "%dh %02dm", s / 3600, s % 3600 / 60);
    }
}
