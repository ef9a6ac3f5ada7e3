package dev.dlock.internal.acquire;

import dev.dlock.internal.observe.AcquireTrace;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.concurrent.CompletableFuture;

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

    /** The caller's cancel, the client's close, and the wait between attempts they end. */
    private final WaitStop stop = new WaitStop();
    private final ChannelWatch watch;
    /** Whether an attempt was made or skipped already: only the first may be skipped. */
    private volatile boolean askedStore;
    /** Rides through store failures within the wait (or the outage tolerance); used by one step at a time. */
    private final OutageRetry outages;
    /** What the client's observers and slow-lock warnings follow of this acquisition. */
    private final AcquireTrace trace;
    /** The caller's wait, which bounds the whole acquisition ({@link WaitBound}); negative: none. */
    private final long callerWaitNanos;

    /**
     * @param owner         for a re-entry the hold's owner id; else a prefix of each attempt's (see {@link Attempts})
     * @param waitNanos     how long to wait (a re-entry makes one attempt, answered within this wait's
     *                      bound); negative: without bound
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
        this.deadline = new Deadline(context.ticker(), reentry ? 0 : waitNanos);
        this.callerWaitNanos = waitNanos;
        this.park = new LocalPark(context, target, kind, this);
        // a message naming no one, or another waiter, is for this one only where a plain release is for every waiter
        this.watch = new ChannelWatch(context.wakeUps(), target.channel(),
                kind.handsOver() || context.store().queuesEveryWaiter() ? queue.waiterId() : "");
        this.outages = OutageRetry.of(context, reentry ? 0 : waitNanos);
        this.trace = context.events().acquireStarted(target, kind, holder, waitNanos, reentry);
    }

    public Acquisition start() {
        WaitBound.arm(context.ticker(), callerWaitNanos, result, this::overran);
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
        stop.cancel();
    }

    /**
     * The caller's wait and its overrun are over and the store has not let the loop end: the caller
     * gets what is known now, and the loop is cancelled. An unanswered attempt is taken from its
     * reply (which then comes for nobody, and a grant in it is given back) and released at once, as
     * after a command timeout, before the caller learns that its outcome is unknown: on one
     * connection the release then comes before anything the caller sends next. With nothing
     * unanswered (a subscription, a pause or a queue leave under way), the caller gets the last
     * failure while the store fails, else not acquired ({@link OutageRetry#atBound}).
     */
    private void overran() {
        RuntimeException failure = outages.atBound(() -> {
            if (!reentry) {
                context.store().abandon(target, kind, attempts.owner());
            }
        }, kind.label() + " '" + target.name() + "'", target.name(), reentry, callerWaitNanos);
        if (failure == null && (reentry || result.isDone())) {
            return;
        }
        // reported before the caller's thread is released, as a grant is (see finish)
        if (!result.isDone()) {
            if (failure != null) {
                trace.failed();
            } else {
                trace.gaveUp(false);
            }
        }
        if (failure != null) {
            result.completeExceptionally(failure);
        } else {
            result.complete(null);
        }
        cancel();
    }

    /** The client is closing: the wait ends with an exception; a grant that races it is given back. */
    public void abortBecauseClientClosed() {
        stop.clientClosed(kind.label() + " '" + target.name() + "'");
    }

    void attempt() {
        if (stop.cancelled()) {
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
            outages.failed(Failures.unwrap(error));
        }
        if (!outages.replied()) {
            lateReply(reply instanceof AcquireReply.Granted grant ? grant : null);
            return;
        }
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
        stop.retryOrFail(outages, failure, pauseNanos -> waitForWake(pauseNanos, false), this::fail);
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
        if (!stop.waitOn(wait)) {
            return;
        }
        wait.startTimer(context.ticker(), waitNanos);
        if (wakeOnRelease) {
            watch.wakeOnMessage(wait);
        }
        if (parked) {
            park.park();
        }
        stop.fireIfStopped(wait);
    }

    /** Claims the current wait for a handoff; see {@link LocalPark#claimForHandoff()}. */
    boolean claimWait() {
        PendingWake wait = stop.currentWait();
        return wait != null && wait.claim();
    }

    /** What its attempts ask: the owner id of the last (once granted, the hold's), the lease, the holder. */
    public Attempts attempts() {
        return attempts;
    }

    /** Whether the wait is over by its caller (cancelled, or the deadline passed). */
    boolean isOver() {
        return stop.cancelled() || deadline.passed();
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
        IllegalStateException closed = stop.closedWhileWaiting();
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
            trace.gaveUp(stop.cancelled());
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

    /**
     * The reply to an attempt that the wait's bound took ({@link #overran()}): the bound answers the
     * caller, after the best-effort release it sends, so this reply is for nobody. It must not answer
     * the caller itself: a failure or a refusal here is not "not acquired" (the attempt's outcome is
     * unknown), and it can come while the bound is still sending its release. A grant in it goes back.
     */
    private void lateReply(AcquireReply.Granted grant) {
        leaveChannel();
        if (grant != null && !reentry) {
            context.handoff().dropped(target.key());
            context.store().abandon(target, kind, attempts.owner());
        }
        queue.leave();
    }

    private void fail(Throwable failure) {
        trace.failed();
        IllegalStateException closed = stop.closedWhileWaiting();
        try {
            leaveChannel();
            queue.leave();
        } finally {
            result.completeExceptionally(closed != null ? closed : failure);
        }
    }

    private void leaveChannel() {
        stop.noWait();
        watch.leave();
    }
}
