package dev.dlock.internal;

import dev.dlock.LockLostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The acquire loop, shared by every blocking and async entry point and by every {@link LockKind}:
 * try; when held elsewhere, subscribe to the lock's channel and try again (a release between the
 * first try and the subscription is caught by that second try); then wait for a release message or
 * the holder's lease to end, whichever is first, and try again, until granted or the deadline
 * passes.
 *
 * <p>Queued kinds ({@link LockKind#queued()}: fair lock, waiting writer) keep one waiter id across
 * the attempts (their place in the queue, or their waiting mark), ask again at least every third
 * of the waiter timeout so that Redis knows they live, and leave the queue as soon as they stop
 * waiting. Every attempt still has a fresh owner id, so a late command of a past attempt cannot
 * touch a later grant. A fair waiter ignores handoffs to other waiters: only the one the lock
 * was handed to wakes at a release.
 *
 * <p>Never blocks a thread: each step runs when the previous reply or wake-up arrives.
 * {@link #result()} completes with the grant, or null when the wait ended (or was cancelled);
 * by then a queued waiter has left the queue (best effort).
 */
final class Acquisition {

    private final LockEngine engine;
    private final LockTarget target;
    private final LockKind kind;
    private final String ownerPrefix;
    private final boolean fixedOwner;
    private final String holder;
    private final long leaseMs;
    private final boolean reentry;
    private final String downgradeFrom;
    private final String waiterId;
    private final long deadlineNanos;
    private final boolean unbounded;
    private final CompletableFuture<AcquireReply.Granted> result = new CompletableFuture<>();

    /** The owner id of the current attempt: a fresh one per attempt, unless re-entering a hold. */
    private volatile String owner;
    /** Fair lock: the waiter's place, agreed by the nodes at its first refusal; 0 until then. */
    private volatile long ticket;
    /** An attempt asked to be queued: the waiter must leave when it stops waiting. */
    private volatile boolean queued;
    private volatile boolean cancelled;
    private volatile Runnable pendingWake;
    private volatile WakeUps.Channel channel;
    /** Reentrant lock on one Redis: busy waits park where a release by this client can hand the lock over. */
    private final boolean parksLocally;
    /** The current wait's woken flag and timer, for {@link #claimForHandoff()}. */
    private volatile AtomicBoolean parkedWoken;
    private volatile ScheduledFuture<?> parkedTimer;
    /** Whether an attempt was made or skipped already: only the first may be skipped. */
    private volatile boolean askedRedis;
    private CompletableFuture<String> signal;

    /**
     * @param owner         for a re-entry the hold's owner id; else a prefix to which each attempt
     *                      adds a sequence number, so that a command of a failed attempt that
     *                      reaches a server late (NOSCRIPT retry, a paused server's backlog) cannot
     *                      touch a later grant
     * @param waitNanos     how long to wait; negative: without bound
     * @param downgradeFrom read lock: owner id of the calling thread's write hold, else ""
     */
    Acquisition(LockEngine engine, LockTarget target, LockKind kind, String owner, String holder, long leaseMs,
                boolean reentry, long waitNanos, String downgradeFrom) {
        this.engine = engine;
        this.target = target;
        this.kind = kind;
        this.ownerPrefix = owner;
        this.fixedOwner = reentry;
        this.owner = owner;
        this.holder = holder;
        this.leaseMs = leaseMs;
        this.reentry = reentry;
        this.downgradeFrom = downgradeFrom;
        // distinct from every owner id (prefix:<n>), and never reused
        this.waiterId = kind.queued() && !reentry ? owner + ":q" + engine.nextOwnerSequence() : "";
        this.unbounded = waitNanos < 0;
        this.deadlineNanos = System.nanoTime() + Math.max(0, waitNanos);
        this.parksLocally = kind == LockKind.REENTRANT && !reentry && engine.store().handsOffLocally();
    }

    Acquisition start() {
        attempt();
        return this;
    }

    LockTarget target() {
        return target;
    }

    LockKind kind() {
        return kind;
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
        WakeUps.Channel current = channel;
        if (current == null && !reentry) {
            // other waiters of this client keep the channel subscribed: a refusal can wait at once
            current = engine.wakeUps().joinIfSubscribed(target.channel());
            channel = current;
        }
        if (current != null) {
            signal = current.signal();
        }
        if (parksLocally && current != null && !askedRedis) {
            long heldUntil = engine.heldHereUntilNanos(target.key());
            long validNanos = heldUntil == 0 ? 0 : heldUntil - System.nanoTime();
            long remaining = deadlineNanos - System.nanoTime();
            if (validNanos > 0 && (unbounded || remaining > 0)) {
                // another thread of this client holds it, so Redis would refuse: park at once and
                // let that thread's release hand it over (or its release message, or its lease's
                // end, wake this waiter to ask Redis)
                askedRedis = true;
                long waitNanos = validNanos + TimeUnit.MILLISECONDS.toNanos(1);
                waitForWake(unbounded ? waitNanos : Math.min(waitNanos, remaining), true);
                return;
            }
        }
        askedRedis = true;
        if (!fixedOwner) {
            owner = ownerPrefix + ":" + engine.nextOwnerSequence();
        }
        boolean mayWait = !reentry && (unbounded || deadlineNanos - System.nanoTime() > 0);
        if (mayWait && kind.queued()) {
            queued = true;
        }
        AcquireRequest request = new AcquireRequest(owner, leaseMs, holder, reentry, waiterId, engine.waiterTimeoutMs(),
                mayWait, ticket, downgradeFrom);
        engine.store().acquire(target, kind, request).whenComplete(this::onReply);
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
            fail(new LockLostException(target.name(), 0, kind.label() + " '" + target.name()
                    + "' was lost before this re-entry: its lease expired or it was force-released"));
            return;
        }
        AcquireReply.Busy busy = (AcquireReply.Busy) reply;
        if (ticket == 0 && busy.ticket() > 0) {
            ticket = busy.ticket();
        }
        long remaining = deadlineNanos - System.nanoTime();
        if (cancelled || (!unbounded && remaining <= 0)) {
            finish(null);
            return;
        }
        if (channel == null) {
            WakeUps.Channel joined = engine.wakeUps().join(target.channel());
            channel = joined;
            joined.subscribed().whenComplete((ok, subscribeError) -> {
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
        if (kind.queued()) {
            // ask again well before the waiter timeout, or Redis takes this waiter for dead
            waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(1, engine.waiterTimeoutMs() / 3)));
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
        boolean park = wakeOnRelease && parksLocally;
        Runnable wake = () -> {
            if (woken.compareAndSet(false, true)) {
                if (timer[0] != null) {
                    timer[0].cancel(false);
                }
                if (park) {
                    engine.parkedWaiters().unpark(target.key(), this);
                }
                attempt();
            }
        };
        pendingWake = wake;
        timer[0] = engine.scheduler().schedule(wake, waitNanos, TimeUnit.NANOSECONDS);
        parkedWoken = woken;
        parkedTimer = timer[0];
        if (wakeOnRelease) {
            wakeOnMessage(signal, woken, wake);
        }
        if (park) {
            engine.parkedWaiters().park(target.key(), this);
        }
        if (cancelled) {
            wake.run();
        }
    }

    /**
     * A release by this client is about to hand the lock to this waiter: true when the waiter
     * was parked and is now bound to wait for {@link #takeOver} or {@link #resume}; false when it
     * is already trying again on its own (woken by a message, its timer or a cancel).
     */
    boolean claimForHandoff() {
        AtomicBoolean woken = parkedWoken;
        if (woken == null || !woken.compareAndSet(false, true)) {
            return false;
        }
        ScheduledFuture<?> timer = parkedTimer;
        if (timer != null) {
            timer.cancel(false);
        }
        return true;
    }

    /** The owner id under which a claimed waiter is handed the lock: a fresh one, as for an attempt. */
    String ownerForHandoff() {
        owner = ownerPrefix + ":" + engine.nextOwnerSequence();
        return owner;
    }

    /** The handoff gave the lock to this claimed waiter. */
    void takeOver(AcquireReply.Granted grant) {
        finish(grant);
    }

    /** The handoff did not give the lock to this claimed waiter: it tries on its own again. */
    void resume() {
        attempt();
    }

    /** Wakes at the next release message meant for this waiter; one for another waiter is let pass. */
    private void wakeOnMessage(CompletableFuture<String> next, AtomicBoolean woken, Runnable wake) {
        next.thenAccept(message -> {
            if (woken.get()) {
                return;
            }
            if (isForThisWaiter(message)) {
                wake.run();
                return;
            }
            WakeUps.Channel current = channel;
            if (current != null) {
                wakeOnMessage(current.signal(), woken, wake);
            }
        });
    }

    /**
     * A fair release names the waiter it handed the lock to ("token:waiterId"): only that one
     * needs to try; the others would only be refused. Any other message (a plain release, a
     * waiter leaving, a reconnect) wakes everyone.
     */
    private boolean isForThisWaiter(String message) {
        if (message == null || !kind.handsOver() || waiterId.isEmpty()) {
            return true;
        }
        int colon = message.indexOf(':');
        return colon < 0 || message.substring(colon + 1).equals(waiterId);
    }

    private void finish(AcquireReply.Granted grant) {
        if (grant != null && result.complete(grant)) {
            // the caller first: the channel can be left once its thread is on its way
            leaveChannel();
            if (engine.store().nodes().size() > 1) {
                // Redlock: the nodes that did not grant may still have this waiter queued
                leaveQueue();
            }
            return;
        }
        leaveChannel();
        if (grant == null) {
            if (queued) {
                // "false" is returned once the waiter has left the queue, so nothing of it remains
                engine.store().leave(target, kind, waiterId).whenComplete((ok, error) -> result.complete(null));
            } else {
                result.complete(null);
            }
            return;
        }
        // the caller cancelled the result first: nobody will ever own this grant
        if (!reentry) {
            engine.handoverDropped(target.key());
            engine.store().abandon(target, kind, owner);
        }
        leaveQueue();
    }

    private void fail(Throwable failure) {
        leaveChannel();
        leaveQueue();
        result.completeExceptionally(failure);
    }

    private void leaveQueue() {
        if (queued) {
            engine.store().leave(target, kind, waiterId);
        }
    }

    private void leaveChannel() {
        pendingWake = null;
        WakeUps.Channel current = channel;
        if (current != null) {
            engine.wakeUps().leave(current);
            channel = null;
        }
    }
}
