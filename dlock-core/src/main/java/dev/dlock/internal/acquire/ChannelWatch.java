package dev.dlock.internal.acquire;

import dev.dlock.internal.store.Failures;
import java.util.concurrent.CompletableFuture;

/**
 * One acquisition's watch on its lock's release channel: joined once (at once if this client is
 * subscribed already, else after the first refusal), its signal taken before each attempt so
 * that a release landing between the attempt and the wait is not missed, and left when the
 * acquisition ends.
 *
 * <p>A release that hands the lock to a queued waiter names it ("token:waiterId"): only that one
 * needs to act, the others would only be refused, so a watch with a waiter id lets such messages
 * for other waiters pass. Any other message (a plain release, a waiter leaving, a reconnect)
 * wakes every waiter.
 */
public final class ChannelWatch {

    private final WakeUps wakeUps;
    private final String channelName;
    /** The waiter id a named handoff must carry to wake this watch; "" when every message wakes it. */
    private volatile String namedWaiter;
    private volatile WakeUps.Channel channel;
    private CompletableFuture<WakeUps.Message> signal;

    public ChannelWatch(WakeUps wakeUps, String channelName, String namedWaiter) {
        this.wakeUps = wakeUps;
        this.channelName = channelName;
        this.namedWaiter = namedWaiter;
    }

    /** The waiter took a fresh waiter id: from now on only handoffs naming it are for this watch. */
    void renameWaiter(String waiterId) {
        namedWaiter = waiterId;
    }

    public boolean isJoined() {
        return channel != null;
    }

    /** Joins only if this client is subscribed to the channel already, so a first refusal can wait at once. */
    public void joinIfSubscribed() {
        channel = wakeUps.joinIfSubscribed(channelName);
    }

    /** Joins, subscribing if no other waiter of this client has: completes once subscribed. */
    public CompletableFuture<Void> join() {
        WakeUps.Channel joined = wakeUps.join(channelName);
        channel = joined;
        return joined.subscribed();
    }

    /** Joins (see {@link #join()}), then runs {@code next} once subscribed, or {@code failed} with why not. */
    void joinThen(Runnable next, java.util.function.Consumer<Throwable> failed) {
        join().whenComplete((ok, error) -> {
            if (error != null) {
                failed.accept(Failures.unwrap(error));
            } else {
                next.run();
            }
        });
    }

    /** Before an attempt: the next message from now on ends the wait that may follow. */
    public void takeSignal() {
        WakeUps.Channel current = channel;
        if (current != null) {
            signal = current.signal();
        }
    }

    /** Ends the wait at the next message meant for this waiter, from the signal taken last. */
    public void wakeOnMessage(PendingWake wait) {
        wakeOnMessage(signal, wait);
    }

    private void wakeOnMessage(CompletableFuture<WakeUps.Message> next, PendingWake wait) {
        next.thenAccept(message -> {
            if (wait.isOver()) {
                return;
            }
            if (isForThisWaiter(message.text())) {
                wait.fire(message.text());
                return;
            }
            wakeOnMessage(message.next(), wait);
        });
    }

    private boolean isForThisWaiter(String message) {
        if (message == null || namedWaiter.isEmpty()) {
            return true;
        }
        int colon = message.indexOf(':');
        return colon < 0 || message.substring(colon + 1).equals(namedWaiter);
    }

    /**
     * The token of a handoff to this waiter when the message names it ("token:waiterId"); 0 for
     * any other message.
     */
    public long handedToken(String message) {
        if (message == null || namedWaiter.isEmpty()) {
            return 0;
        }
        int colon = message.indexOf(':');
        if (colon <= 0 || !message.substring(colon + 1).equals(namedWaiter)) {
            return 0;
        }
        try {
            return Long.parseLong(message.substring(0, colon));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public void leave() {
        WakeUps.Channel current = channel;
        if (current != null) {
            wakeUps.leave(current);
            channel = null;
        }
    }
}
