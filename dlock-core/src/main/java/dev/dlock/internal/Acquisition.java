package dev.dlock.internal;

import dev.dlock.LockLostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
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
    private final String ownerPrefix;
    private final boolean fixedOwner;
    private final String holder;
    private final long leaseMs;
    private final boolean reentry;
    private final long deadlineNanos;
    private final boolean unbounded;
    private final CompletableFuture<AcquireReply.Granted> result = new CompletableFuture<>();

    /** The owner id of the current attempt: a fresh one per attempt, unless re-entering a hold. */
    private volatile String owner;
    private volatile boolean cancelled;
    private volatile Runnable pendingWake;
    private WakeUps.Channel channel;
    private CompletableFuture<Void> signal;

    /**
     * @param owner     for a re-entry the hold's owner id; else a prefix to which each attempt adds
     *                  a sequence number, so that a command of a failed attempt that reaches a server
     *                  late (NOSCRIPT retry, a paused server's backlog) cannot touch a later grant
     * @param waitNanos how long to wait; negative: without bound
     */
    Acquisition(LockEngine engine, LockTarget target, String owner, String holder, long leaseMs, boolean reentry,
                long waitNanos) {
        this.engine = engine;
        this.target = target;
        this.ownerPrefix = owner;
        this.fixedOwner = reentry;
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

    LockTarget target() {
        return target;
    }

    /** The owner id of the last attempt: once granted, the hold's. */
    String owner() {
        return owner;
    }

    String holder() {
        return holder;
    }

    long leaseMs() {
        return leaseMs;
    }

    CompletableFuture<AcquireReply.Granted> result() {
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
        if (!fixedOwner) {
            owner = ownerPrefix + ":" + engine.nextOwnerSequence();
        }
        engine.store().acquire(target, owner, leaseMs, holder, reentry).whenComplete(this::onReply);
    }

    private void onReply(AcquireReply reply, Throwable error) {
        if (error != null) {
            fail(Failures.unwrap(error));
            return;
        }
        if (reply instanceof AcquireReply.Granted grant) {
            finish(grant);
            return;
        }
        if (reply instanceof AcquireReply.LostOnReentry) {
            fail(new LockLostException(target.name(), 0, "lock '" + target.name()
                    + "' was lost before this re-entry: its lease expired or it was force-released"));
            return;
        }
        AcquireReply.Busy busy = (AcquireReply.Busy) reply;
        long remaining = deadlineNanos - System.nanoTime();
        if (cancelled || (!unbounded && remaining <= 0)) {
            finish(null);
            return;
        }
        if (channel == null) {
            channel = engine.wakeUps().join(target.channel());
            channel.subscribed().whenComplete((ok, subscribeError) -> {
                if (subscribeError != null) {
                    fail(Failures.unwrap(subscribeError));
                } else {
                    attempt();
                }
            });
            return;
        }
        long waitNanos;
        if (busy.split()) {
            // contenders split the Redlock nodes and all gave back: retrying in step would split again
            waitNanos = TimeUnit.MILLISECONDS.toNanos(1 + ThreadLocalRandom.current().nextLong(engine.splitBackoffMs()));
        } else if (busy.retryAfterMs() >= 0) {
            // a key at 0 ms still exists for up to a millisecond
            waitNanos = TimeUnit.MILLISECONDS.toNanos(busy.retryAfterMs() + 1);
        } else {
            // no TTL on the key: not one of ours; a release message still wakes the waiter
            waitNanos = engine.idleRetryNanos();
        }
        if (!unbounded) {
            waitNanos = Math.min(waitNanos, remaining);
        }
        waitForWake(waitNanos, !busy.split());
    }

    /** @param wakeOnRelease false: wait out the back-off even if a release message comes */
    private void waitForWake(long waitNanos, boolean wakeOnRelease) {
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
        if (wakeOnRelease) {
            signal.thenRun(wake);
        }
        if (cancelled) {
            wake.run();
        }
    }

    private void finish(AcquireReply.Granted grant) {
        leaveChannel();
        if (!result.complete(grant) && grant != null && !reentry) {
            // the caller cancelled the result first: nobody will ever own this grant
            engine.store().abandon(target, owner);
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
