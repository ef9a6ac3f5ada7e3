package dev.dlock.internal.acquire;

import dev.dlock.internal.observe.AcquireTrace;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.StoreAllOrNone;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A multi-lock's acquire loop where the store takes all its names in one step
 * ({@link StoreAllOrNone}): each attempt asks for every name at once and gets all of them or none.
 * Refused, it waits on the channel of the name that was busy, queued there under its one waiter id
 * (the only trace it leaves in the store while it waits), until a release message for it or that
 * name's lease end, and asks again for all. A release that hands the busy name to its waiter id
 * wakes it; its next attempt takes that name with the others, or gives it on if another name is
 * busy by then. Every attempt has fresh owner ids, so a late reply of a past attempt cannot touch a
 * later grant.
 *
 * <p>Never blocks a thread. {@link #result()} completes with one grant per target, in their
 * order, or null when the wait ended (or was cancelled); by then the waiter has left every queue.
 */
public final class AllOrNoneAcquisition {

    private final AcquireContext context;
    private final StoreAllOrNone store;
    private final List<LockTarget> targets;
    private final String ownerPrefix;
    private final String holder;
    private final long leaseMs;
    private final String waiterId;
    private final Deadline deadline;
    private final OutageRetry outages;
    private final List<AcquireTrace> traces;
    private final CompletableFuture<List<AcquireReply.Granted>> result = new CompletableFuture<>();
    /** The names it was refused at and queued: where it may still be queued, or have been handed the lock. */
    private final Set<Integer> refusedAt = ConcurrentHashMap.newKeySet();

    private volatile List<String> owners = List.of();
    /** The caller's cancel, the client's close, and the wait between attempts they end. */
    private final WaitStop stop = new WaitStop();
    /** The watch on the channel of the name the last attempt was refused at; null before. */
    private volatile ChannelWatch watch;
    private volatile int busyIndex = -1;
    /** Whether the last attempt asked to be queued if refused. */
    private volatile boolean lastMayWait;
    /** The caller's wait, which bounds the whole acquisition ({@link WaitBound}); negative: none. */
    private final long waitNanos;

    /**
     * @param ownerPrefix the prefix of every attempt's owner ids (the client's and thread's)
     * @param waitNanos   how long to wait; negative: without bound
     */
    public AllOrNoneAcquisition(AcquireContext context, StoreAllOrNone store, List<LockTarget> targets,
                                String ownerPrefix, String holder, long leaseMs, long waitNanos) {
        this.context = context;
        this.store = store;
        this.targets = List.copyOf(targets);
        this.ownerPrefix = ownerPrefix;
        this.holder = holder;
        this.leaseMs = leaseMs;
        this.waiterId = ownerPrefix + ":q" + context.identity().nextOwnerSequence();
        this.waitNanos = waitNanos;
        this.deadline = new Deadline(context.ticker(), waitNanos);
        this.outages = OutageRetry.of(context, waitNanos);
        List<AcquireTrace> started = new ArrayList<>();
        for (LockTarget target : this.targets) {
            started.add(context.events().acquireStarted(target, LockKind.REENTRANT, holder, waitNanos, false));
        }
        this.traces = List.copyOf(started);
    }

    public AllOrNoneAcquisition start() {
        WaitBound.arm(context.ticker(), waitNanos, result, this::overran);
        attempt();
        return this;
    }

    public List<LockTarget> targets() {
        return targets;
    }

    /** The owner ids of the last attempt, one per target: once granted, the holds'. */
    public List<String> owners() {
        return owners;
    }

    public String holder() {
        return holder;
    }

    public long leaseMs() {
        return leaseMs;
    }

    /** Where the acquire was called from, when the client captures it; else null. */
    public StackTraceElement site() {
        return traces.get(0).site;
    }

    public CompletableFuture<List<AcquireReply.Granted>> result() {
        return result;
    }

    /** Stops waiting; a grant that arrives after the result completed is given back. */
    public void cancel() {
        stop.cancel();
    }

    /** See {@link Acquisition}'s: what is known when the wait's bound passes, then a cancel. */
    private void overran() {
        List<String> names = targets.stream().map(LockTarget::name).toList();
        RuntimeException failure = outages.atBound(this::giveBack, "multi-lock " + names, names.toString(), false, waitNanos);
        if (failure == null && result.isDone()) {
            return;
        }
        // reported before the caller's thread is released, as a grant is
        if (!result.isDone()) {
            traces.forEach(failure != null ? AcquireTrace::failed : trace -> trace.gaveUp(false));
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
        stop.clientClosed("multi-lock " + targets.stream().map(LockTarget::name).toList());
    }

    private void attempt() {
        if (stop.cancelled()) {
            finish(null);
            return;
        }
        ChannelWatch current = watch;
        if (current != null) {
            current.takeSignal();
        }
        boolean mayWait = !deadline.passed();
        List<String> fresh = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            fresh.add(ownerPrefix + ":" + context.identity().nextOwnerSequence());
        }
        owners = List.copyOf(fresh);
        lastMayWait = mayWait;
        outages.attempting();
        store.acquireAll(targets, owners, leaseMs, holder, waiterId, context.settings().waiterTimeout().toMillis(),
                mayWait).whenComplete(this::onReply);
    }

    private void onReply(StoreAllOrNone.Reply reply, Throwable error) {
        if (error != null) {
            outages.failed(Failures.unwrap(error));
        }
        if (!outages.replied()) {
            // cut off by the wait's bound, which answers the caller (see Acquisition's lateReply): grants go back
            leaveChannel();
            if (error == null && reply.granted()) {
                giveBack();
            }
            leaveQueuesThen(() -> { });
            return;
        }
        if (error != null) {
            retryOrFail(Failures.unwrap(error));
            return;
        }
        outages.answered();
        if (reply.granted()) {
            finish(reply.grants());
        } else {
            waitAfter(reply.busyIndex(), reply.busy());
        }
    }

    private void waitAfter(int index, AcquireReply.Busy busy) {
        for (int queuedAt : refusedAt) {
            if (queuedAt != index) {
                // the store gave on whatever it had handed to this waiter there
                context.handoff().dropped(targets.get(queuedAt).key());
            }
        }
        if (lastMayWait) {
            refusedAt.add(index);
        }
        if (index != busyIndex) {
            leaveChannel();
            busyIndex = index;
            watch = new ChannelWatch(context.wakeUps(), targets.get(index).channel(), waiterId);
        }
        if (stop.cancelled() || deadline.passed()) {
            finish(null);
            return;
        }
        ChannelWatch current = watch;
        if (!current.isJoined()) {
            current.joinThen(this::attempt, this::retryOrFail);
            return;
        }
        waitForWake(RetryDelay.nanos(busy, true, context.settings(), deadline.unbounded(), deadline.remainingNanos()), true);
    }

    private void retryOrFail(Throwable failure) {
        stop.retryOrFail(outages, failure, pauseNanos -> waitForWake(pauseNanos, false), this::fail);
    }

    private void waitForWake(long waitNanos, boolean wakeOnRelease) {
        traces.forEach(AcquireTrace::waiting);
        PendingWake wait = new PendingWake(message -> attempt());
        if (!stop.waitOn(wait)) {
            return;
        }
        wait.startTimer(context.ticker(), waitNanos);
        ChannelWatch current = watch;
        if (wakeOnRelease && current != null && current.isJoined()) {
            current.wakeOnMessage(wait);
        }
        stop.fireIfStopped(wait);
    }

    private void finish(List<AcquireReply.Granted> grants) {
        IllegalStateException closed = stop.closedWhileWaiting();
        if (closed != null) {
            if (grants != null) {
                giveBack();
            }
            fail(closed);
            return;
        }
        if (grants != null && !result.isDone()) {
            traces.forEach(AcquireTrace::granted);
        }
        if (grants != null && result.complete(grants)) {
            leaveChannel();
            return;
        }
        leaveChannel();
        if (grants == null) {
            traces.forEach(trace -> trace.gaveUp(stop.cancelled()));
            leaveQueuesThen(() -> result.complete(null));
            return;
        }
        // the caller cancelled the result first: nobody will ever own these grants
        giveBack();
    }

    private void fail(Throwable failure) {
        traces.forEach(AcquireTrace::failed);
        try {
            leaveChannel();
            leaveQueuesThen(() -> { });
        } finally {
            IllegalStateException closed = stop.closedWhileWaiting();
            result.completeExceptionally(closed != null ? closed : failure);
        }
    }

    /** Best effort: the grants of the last attempt go back. */
    private void giveBack() {
        List<String> granted = owners;
        for (int i = 0; i < targets.size(); i++) {
            context.handoff().dropped(targets.get(i).key());
            context.store().abandon(targets.get(i), LockKind.REENTRANT, granted.get(i));
        }
    }

    /**
     * Leaves the queue of every name it was refused at (and gives on a lock handed to it there),
     * then runs {@code then}.
     */
    private void leaveQueuesThen(Runnable then) {
        List<CompletableFuture<Void>> leaving = new ArrayList<>();
        for (int index : refusedAt) {
            LockTarget target = targets.get(index);
            context.handoff().dropped(target.key());
            leaving.add(context.store().leave(target, LockKind.REENTRANT, waiterId));
        }
        CompletableFuture.allOf(leaving.toArray(CompletableFuture[]::new)).whenComplete((ok, error) -> then.run());
    }

    private void leaveChannel() {
        stop.noWait();
        ChannelWatch current = watch;
        if (current != null) {
            current.leave();
        }
    }
}
