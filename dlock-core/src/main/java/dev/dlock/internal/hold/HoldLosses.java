package dev.dlock.internal.hold;

import dev.dlock.LockListener;
import dev.dlock.LockLostException;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.settings.Daemons;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declares holds lost and tells the client's {@link LockListener}s, once per hold, on a thread of
 * their own ("dlock-listener") so that a slow listener delays neither renewals nor replies. Marking
 * a hold lost takes it out of the registry and the watchdog ({@link Hold#onLoss}), so whoever
 * finds a loss only reports it here.
 */
public final class HoldLosses {

    private static final Logger LOG = LoggerFactory.getLogger(HoldLosses.class);
    /** Why a hold is lost when its release finds it someone else's or gone. */
    public static final String NOT_OWNER_AT_RELEASE =
            "it was no longer its owner's at release (lease expired or force-released); the lock was left untouched";

    private final List<LockListener> listeners;
    private final HoldEvents events;
    private final ExecutorService listenerExecutor = Executors.newSingleThreadExecutor(Daemons.named("dlock-listener"));

    public HoldLosses(List<LockListener> listeners, HoldEvents events) {
        this.listeners = List.copyOf(listeners);
        this.events = events;
    }

    /** Marks the hold lost and tells the observers and the listeners, once. */
    public void lost(Hold hold, LossCause cause, String reason) {
        if (hold.markLost(cause, reason)) {
            LockLostException loss = hold.lossOrNull();
            LOG.warn(loss.getMessage());
            events.lost(hold, cause);
            for (LockListener listener : listeners) {
                listenerExecutor.execute(() -> {
                    try {
                        listener.onLockLost(loss);
                    } catch (RuntimeException e) {
                        LOG.warn("lock listener {} failed", listener, e);
                    }
                });
            }
        }
    }

    /** Listeners already told still run; later losses are not reported. */
    public void shutdown() {
        listenerExecutor.shutdown();
    }
}
