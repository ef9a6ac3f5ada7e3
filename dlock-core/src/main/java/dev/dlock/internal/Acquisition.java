package dev.dlock.internal;

import dev.dlock.LockBackendException;
import dev.dlock.LockLostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The acquire loop, shared by every blocking and async entry point: try; when held elsewhere,
 * subscribe to the lock's channel and try again (a release between the first try and the
 * subscription is caught by that second try); then wait for a release message or the holder's
 * lease to end, whichever is first, and try again, until granted or the deadline passes.
 *
 * <p>Never blocks a thread: each step runs when the previous reply or wake-up arrives.
 * {@link #result()} completes with the grant, or null when the wait ended (or was cancelled).
 */
final class Acquisition {

    private final LockEngine engine;
    private final LockTarget target;
    private final String owner;
    private final String holder;
    private final long leaseMs;
    private final boolean reentry;
    private final long deadlineNanos;
    private final boolean unbounded;
    private final CompletableFuture<Grant> result = new CompletableFuture<>();

    private volatile boolean cancelled;
    private volatile Runnable pendingWake;
    private WakeUps.Channel channel;
    private CompletableFuture<Void> signal;
    private long attemptStartNanos;

    /** @param waitNanos how long to wait; negative: without bound */
    Acquisition(LockEngine engine, LockTarget target, String owner, String holder, long leaseMs, boolean reentry,
                long waitNanos) {
        this.engine = engine;
        this.target = target;
        this.owner = owner;
        this.holder = holder;
        this.leaseMs = leaseMs;
        this.reentry = reentry;
        this.unbounded = waitNanos < 0;
        this.deadlineNanos = System.nanoTime() + Math.max(0, waitNanos);
    }

    Acquisition start() {
        attempt();
        return this;
    }

    CompletableFuture<Grant> result() {
        return result;
    }

    /**
     * Stops waiting. The result then completes with null, or with a grant that won the race; a
     * grant that arrives after the result completed is abandoned in Redis.
     */
    void cancel() {
        cancelled = true;
        Runnable wake = pendingWake;
        if (wake != null) {
            wake.run();
        }
    }

    private void attempt() {
        if (cancelled) {
            finish(null);
            return;
        }
        if (channel != null) {
            signal = channel.signal();
        }
        attemptStartNanos = System.nanoTime();
        engine.node().eval(LuaScript.ACQUIRE, target.keys(), owner, Long.toString(leaseMs), holder, reentry ? "1" : "0")
                .whenComplete(this::onReply);
    }

    private void onReply(Object reply, Throwable error) {
        if (error != null) {
            onError(error);
            return;
        }
        List<?> fields = (List<?>) reply;
        long code = (Long) fields.get(0);
        if (code == 1) {
            Grant grant = new Grant(Long.parseLong(String.valueOf(fields.get(1))), ((Long) fields.get(2)).intValue(),
                    attemptStartNanos);
            finish(grant);
            return;
        }
        if (code == -1) {
            fail(new LockLostException(target.name(), 0, "lock '" + target.name()
                    + "' was lost before this re-entry: its lease expired or it was force-released"));
            return;
        }
        long holderPttl = (Long) fields.get(1);
        long remaining = deadlineNanos - System.nanoTime();
        if (cancelled || (!unbounded && remaining <= 0)) {
            finish(null);
            return;
        }
        if (channel == null) {
            channel = engine.wakeUps().join(target.channel());
            channel.subscribed().whenComplete((ok, subscribeError) -> {
                if (subscribeError != null) {
                    onError(subscribeError);
                } else {
                    attempt();
                }
            });
            return;
        }
        // a key at 0 ms still exists for up to a millisecond; -1 (no TTL) is not one of ours
        long waitNanos = holderPttl >= 0 ? TimeUnit.MILLISECONDS.toNanos(holderPttl + 1) : engine.idleRetryNanos();
        if (!unbounded) {
            waitNanos = Math.min(waitNanos, remaining);
        }
        waitForWake(waitNanos);
    }

    private void waitForWake(long waitNanos) {
        AtomicBoolean woken = new AtomicBoolean();
        ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
        Runnable wake = () -> {
            if (woken.compareAndSet(false, true)) {
                if (timer[0] != null) {
                    timer[0].cancel(false);
                }
                attempt();
            }
        };
        pendingWake = wake;
        timer[0] = engine.scheduler().schedule(wake, waitNanos, TimeUnit.NANOSECONDS);
        signal.thenRun(wake);
        if (cancelled) {
            wake.run();
        }
    }

    private void onError(Throwable error) {
        boolean unknown = Failures.outcomeUnknown(error);
        String operation = reentry ? "re-entry" : "acquire";
        RuntimeException failure = Failures.commandFailed(operation, target.name(), target.key(), engine.node(),
                engine.commandTimeoutMs(), error);
        if (unknown && !reentry) {
            engine.abandon(target, owner);
            failure = new LockBackendException(failure.getMessage() + "; a best-effort release was sent",
                    failure.getCause());
        }
        fail(failure);
    }

    private void finish(Grant grant) {
        leaveChannel();
        if (!result.complete(grant) && grant != null && !reentry) {
            // the caller cancelled the result first: nobody will ever own this grant
            engine.abandon(target, owner);
        }
    }

    private void fail(Throwable failure) {
        leaveChannel();
        result.completeExceptionally(failure);
    }

    private void leaveChannel() {
        pendingWake = null;
        if (channel != null) {
            engine.wakeUps().leave(channel);
            channel = null;
        }
    }
}
