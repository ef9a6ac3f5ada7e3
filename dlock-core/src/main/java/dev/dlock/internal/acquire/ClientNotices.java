package dev.dlock.internal.acquire;

import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.hold.Hold;
import dev.dlock.internal.hold.HoldLosses;
import dev.dlock.internal.hold.HoldRegistry;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.WakeUpSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's own channel ({@link WakeUpSource#clientChannel}). A forced release publishes
 * "key\towner" there for each holder's client: the loss is heard within a round trip instead of
 * at the next renewal; should the subscription or a message fail, the watchdog, a release or the
 * hold's own clock still find the loss. A release that hands a lock to a queued waiter of this
 * client tells it there too ("handoff\tchannel\tmessage"), so that no other client wakes: the
 * message goes on to the waiters of that lock's channel.
 */
public final class ClientNotices {

    private static final Logger LOG = LoggerFactory.getLogger(ClientNotices.class);
    /** How a message that hands a lock to one of this client's waiters starts. */
    private static final String HANDOFF_NOTICE = "handoff\t";

    private final LockStore store;
    private final WakeUps wakeUps;
    private final HoldRegistry holds;
    private final HoldLosses losses;

    private ClientNotices(LockStore store, WakeUps wakeUps, HoldRegistry holds, HoldLosses losses) {
        this.store = store;
        this.wakeUps = wakeUps;
        this.holds = holds;
        this.losses = losses;
    }

    /** Subscribes to the client's channel for good. */
    public static void listen(String keyPrefix, String clientId, LockStore store, WakeUps wakeUps, HoldRegistry holds,
                              HoldLosses losses) {
        ClientNotices notices = new ClientNotices(store, wakeUps, holds, losses);
        String channel = WakeUpSource.clientChannel(keyPrefix, clientId);
        wakeUps.listen(channel, notices::onMessage).whenComplete((ok, error) -> {
            if (error != null) {
                LOG.debug("not subscribed to {}: forced releases are noticed at the next renewal", channel, error);
            }
        });
    }

    private void onMessage(String message) {
        if (message.startsWith(HANDOFF_NOTICE)) {
            int tab = message.indexOf('\t', HANDOFF_NOTICE.length());
            if (tab > 0) {
                wakeUps.onMessage(message.substring(HANDOFF_NOTICE.length(), tab), message.substring(tab + 1));
            }
            return;
        }
        int tab = message.indexOf('\t');
        if (tab < 0) {
            return;
        }
        String key = message.substring(0, tab);
        String owner = message.substring(tab + 1);
        for (Hold hold : holds.snapshot()) {
            if (hold.target.key().equals(key) && store.storedOwner(hold.owner).equals(owner)) {
                losses.lost(hold, LossCause.FORCE_RELEASED, "it was force-released (forceUnlock or 'dlock release "
                        + "--force'); the store told its client at once");
            }
        }
    }
}
