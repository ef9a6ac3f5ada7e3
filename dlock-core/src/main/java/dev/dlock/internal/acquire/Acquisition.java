package dev.dlock.internal.acquire;

import dev.dlock.internal.observe.AcquireTrace;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * The acquire loop, shared by every blocking and async entry point and by every {@link LockKind}:
 * try; when held elsewhere, subscribe to the lock's channel and try again (a release between the
 * first try and the subscription is caught by that second try); then wait for a release message or
 * the holder's lease to end, whichever is first, and try again, until granted or the deadline
 * passes.
 *
 * <p>Queued kinds ({@link LockKind#queued()}: fair lock, waiting writer) keep one waiter id across
 * the attempts (their {@link QueuePlace}, which says when a reentrant waiter takes a fresh one),
 * ask again at least every third of the waiter timeout so that the store knows they live, and leave
 * the queue as soon as they stop waiting. Every attempt still has a fresh owner id, so a late
 * command of a past attempt cannot touch a later grant. A fair waiter ignores handoffs to other
 * waiters: only the one the lock was handed to wakes at a release. A kind that hands off locally
 * parks its busy waits ({@link LocalPark}); where the store hands off, its refused waiters are
 * queued the same way, and the one a release hands the lock to takes it over from the release
 * message without asking the store again.
 *
 * <p>Never blocks a thread: each step runs when the previous reply or wake-up arrives.
 * {@link #result()} completes with the grant, or null when the wait ended (or was cancelled);
 * by then a queued waiter has left the queue (best effort).
 */
public final class Acquisition {

    private final AcquireContext context;
    private final LockTarget target;
    private final LockKind kind;
    private final Attempts attempts;
    private final boolean reentry;
    private final QueuePlace queue;
    private final LocalPark park;
    private final Deadline deadline;
    private final CompletableFuture<AcquireReply.Granted> result = new CompletableFuture<>();

    private volatile boolean cancelled;
    /** Set when the client closes during the wait: the result fails with it, whatever comes. */
    private volatile IllegalStateException closedWhileWaiting;
    /** The current wait between attempts; null before the first and once the acquisition ended. */
    private volatile PendingWake pendingWake;
    private final ChannelWatch watch;
    /** Whether an attempt was made or skipped already: only the first may be skipped. */
    private volatile boolean askedStore;
    /** Rides through store failures within the wait (or the outage tolerance); used by one step at a time. */
    private final OutageRetry outages;
    /** What the client's observers and slow-lock warnings follow of this acquisition. */
    private final AcquireTrace trace;

    /**
     * @param owner         for a re-entry the hold's owner id; else a prefix of each attempt's (see {@link Attempts})
     * @param waitNanos     how long to wait; negative: without bound
     * @param downgradeFrom read lock: owner id of the calling thread's write hold, else ""
     */
    public Acquisition(AcquireContext context, LockTarget target, LockKind kind, String owner, String holder, long leaseMs,
                boolean reentry, long waitNanos, String downgradeFrom) {
        this.context = context;
        this.target = target;
        this.kind = kind;
        this.attempts = new Attempts(context.identity(), owner, holder, leaseMs, reentry, downgradeFrom,
                context.settings().waiterTimeout().toMillis());
        this.reentry = reentry;
        this.queue = new QueuePlace(context, target, kind, owner, reentry);
        this.deadline = new Deadline(context.ticker(), waitNanos);
        this.park = new LocalPark(context, target, kind, this);
        this.watch = new ChannelWatch(context.wakeUps(), target.channel(), kind.handsOver() ? queue.waiterId() : "");
        this.outages = OutageRetry.of(context, reentry ? 0 : waitNanos);
        this.trace = context.events().acquireStarted(target, kind, holder, waitNanos, reentry);
    }

    public Acquisition start() {
        attempt();
        return this;
    }

    /** Semaphore: the permit count the caller expects, sent with every attempt; call before {@link #start()}. */
    public Acquisition withPermits(int permits) {
        attempts.permits(permits);
        return this;
    }

    public LockTarget target() {
        return target;
    }

    public LockKind kind() {
        return kind;
    }

    /** Where the acquire was called from, when the client captures it; else null. */
    public StackTraceElement site() {
        return trace.site;
    }

    public CompletableFuture<AcquireReply.Granted> result() {
        return result;
    }

    /**
     * Stops waiting. The result then completes with null, or with a grant that won the race; a
     * grant that arrives after the result completed is abandoned in the store.
     */
    public void cancel() {
        cancelled = true;
        PendingWake wait = pendingWake;
        if (wait != null) {
            wait.fire();
        }
    }

    /** The client is closing: the wait ends with an exception; a grant that races it is given back. */
    public void abortBecauseClientClosed() {
        closedWhileWaiting = new IllegalStateException(kind.label() + " '" + target.name()
                + "': the LockClient was closed while waiting for it");
        cancel();
    }

    void attempt() {
        if (cancelled) {
            finish(null);
            return;
        }
        if (!watch.isJoined() && !reentry) {
            // other waiters of this client keep the channel subscribed: a refusal can wait at once
            watch.joinIfSubscribed();
        }
        watch.takeSignal();
        long parkNanos = park.enabled() && watch.isJoined() && !askedStore ? park.insteadOfAsking() : 0;
        askedStore = true;
        if (parkNanos > 0) {
            // another thread of this client holds it, so the store would refuse: park at once and let
            // that thread's release hand it over (or its release message, or its lease's end, wake
            // this waiter to ask the store)
            waitForWake(parkNanos, true);
            return;
        }
        boolean mayWait = !reentry && !deadline.passed();
        queue.attempting(mayWait);
        AcquireRequest request = attempts.next(queue, mayWait, context.ticker().nanoTime());
        outages.attempting();
        context.store().acquire(target, kind, request).whenComplete(this::onReply);
    }

    private void onReply(AcquireReply reply, Throwable error) {
        if (error != null) {
            queue.renameAfterFailedAttempt(watch);
            retryOrFail(Failures.unwrap(error));
            return;
        }
        outages.answered();
        if (reply instanceof AcquireReply.Granted grant) {
            finish(grant);
        } else if (reply instanceof AcquireReply.Busy busy) {
            waitAfter(busy);
        } else {
            fail(Refusals.of(reply, target, kind, attempts.permits()));
        }
    }

    /** Refused: wait for a release message, the holder's lease or the queue's refresh, then attempt again. */
    private void waitAfter(AcquireReply.Busy busy) {
        queue.refused(busy);
        if (isOver()) {
            finish(null);
            return;
        }
        if (!watch.isJoined()) {
            watch.joinThen(this::attempt, this::retryOrFail);
            return;
        }
        long waitNanos = RetryDelay.nanos(busy, queue.inQueue(), context.settings(), deadline.unbounded(),
                deadline.remainingNanos());
        waitForWake(waitNanos, !busy.split());
    }

    /**
     * The store failed: try again after a pause while the budget lasts, else fail. A failed attempt
     * whose outcome is unknown was already abandoned by the store (best effort), and every attempt
     * has its own owner id, so a late grant of this one cannot be taken for the next.
     */
    private void retryOrFail(Throwable failure) {
        long pauseNanos = cancelled ? -1 : outages.pauseAfter(failure);
        try {
            if (pauseNanos >= 0) {
                waitForWake(pauseNanos, false);
                return;
            }
        } catch (RejectedExecutionException clientClosed) {
            // the timer is gone: give up as if the budget had ended
        }
        fail(cancelled ? failure : outages.givenUp(failure));
    }

    /** @param wakeOnRelease false: wait out the back-off even if a release message comes */
    void waitForWake(long waitNanos, boolean wakeOnRelease) {
        trace.waiting();
        boolean parked = wakeOnRelease && park.enabled();
        PendingWake wait = new PendingWake(message -> {
            if (parked) {
                park.unpark();
            }
            long handedToken = kind.handsOffLocally() && queue.inQueue() ? watch.handedToken(message) : 0;
            if (handedToken > 0) {
                // a release handed the lock to this queued waiter and named it: see QueuePlace.handedOver
                attempts.ownedAs(queue.waiterId());
                finish(queue.handedOver(handedToken, attempts.lastStartNanos(), attempts.leaseMs()));
            } else {
                attempt();
            }
        });
        pendingWake = wait;
        if (cancelled) {
            // a cancel (or the client's close, which also stops the timer) came before the wait was set
            wait.fire();
            return;
        }
        wait.startTimer(context.ticker(), waitNanos);
        if (wakeOnRelease) {
            watch.wakeOnMessage(wait);
        }
        if (parked) {
            park.park();
        }
        if (cancelled) {
            wait.fire();
        }
    }

    /** Claims the current wait for a handoff; see {@link LocalPark#claimForHandoff()}. */
    boolean claimWait() {
        PendingWake wait = pendingWake;
        return wait != null && wait.claim();
    }

    /** What its attempts ask: the owner id of the last (once granted, the hold's), the lease, the holder. */
    public Attempts attempts() {
        return attempts;
    }

    /** Whether the wait is over by its caller (cancelled, or the deadline passed). */
    boolean isOver() {
        return cancelled || deadline.passed();
    }

    Deadline deadline() {
        return deadline;
    }

    QueuePlace queue() {
        return queue;
    }

    /** See {@link QueuePlace#shortHandoverFromNanos()}. */
    public long shortHandoverFromNanos() {
        return queue.shortHandoverFromNanos();
    }

    void finish(AcquireReply.Granted grant) {
        IllegalStateException closed = closedWhileWaiting;
        if (closed != null) {
            if (grant != null && !reentry) {
                context.store().abandon(target, kind, attempts.owner());
            }
            fail(closed);
            return;
        }
        if (grant != null && !result.isDone()) {
            // reported before the caller's thread is released, so its lock() returns with it counted
            trace.granted();
        }
        if (grant != null && result.complete(grant)) {
            // the caller first: the channel can be left once its thread is on its way
            leaveChannel();
            if (context.store().isQuorum()) {
                // Redlock: the nodes that did not grant may still have this waiter queued
                queue.leave();
            }
            return;
        }
        leaveChannel();
        if (grant == null) {
            trace.gaveUp(cancelled);
            if (queue.isQueuedInStore()) {
                // a release of this client may have just named it (leave.lua passes the lock on):
                // this client's other waiters must not go on taking the lock for held here
                context.handoff().dropped(target.key());
            }
            queue.leaveThen(() -> result.complete(null));
            return;
        }
        // the caller cancelled the result first: nobody will ever own this grant
        if (!reentry) {
            context.handoff().dropped(target.key());
            context.store().abandon(target, kind, attempts.owner());
        }
        queue.leave();
    }

    private void fail(Throwable failure) {
        trace.failed();
        IllegalStateException closed = closedWhileWaiting;
        try {
            leaveChannel();
            queue.leave();
        } finally {
            result.completeExceptionally(closed != null ? closed : failure);
        }
    }

    private void leaveChannel() {
        pendingWake = null;
        watch.leave();
    }
}
