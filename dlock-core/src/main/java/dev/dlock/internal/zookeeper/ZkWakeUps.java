package dev.dlock.internal.zookeeper;

import dev.dlock.internal.store.WakeUpSource;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A client's wake-ups from ZooKeeper watches: a lock's channel is one persistent recursive watch per
 * client on the lock's node, and each deletion of a node under it (a release, a waiter leaving, a
 * session's end) is one message, {@code <node>:<waiter>}: the waiter is the one of this client whose
 * queued node comes right after the deleted one ({@link #waitsFor}), else empty. A queued waiter
 * (fair lock, writer, reentrant waiter) thus wakes only when its predecessor goes, as with a watch on
 * that node alone, and never in a herd; waiters without a node (readers, permits) wake at every
 * deletion. The node's name before the colon keeps two messages apart (equal messages in a row
 * count once) and is no token, so nobody takes a message for a handoff. Creations and renewals
 * wake nobody. The client's own channel needs no watch: the store tells it of its holds'
 * forced releases from a watch on each held node ({@link #tellClient}). After a reconnect ZooKeeper
 * sets the watches again by itself, after a new session this class does; either way the listener
 * hears of it, since a release may have gone unseen.
 */
final class ZkWakeUps implements WakeUpSource, ZkSession.Listener {

    private static final String RELEASED = ":released";

    private final ZkSession session;
    private final String clientChannelStart;
    /** The client's own channel, once subscribed. */
    private volatile String clientChannel;
    private final Map<String, Watcher> watches = new ConcurrentHashMap<>();
    private volatile Listener listener;
    /** Queued waiters of this client by the path of the node just before theirs. */
    private final Map<String, String> waiterByPredecessor = new ConcurrentHashMap<>();
    private final Map<String, String> predecessorByWaiter = new ConcurrentHashMap<>();
    /**
     * The paths of the nodes deleted lately, so that a waiter that names its predecessor after the
     * deletion was heard (a read that raced it) is woken at once instead of waiting for its refresh.
     */
    private final Set<String> recentlyDeleted = ConcurrentHashMap.newKeySet();
    private final Queue<String> deletionOrder = new ConcurrentLinkedQueue<>();
    private static final int RECENT_DELETIONS = 4096;

    /** @param keyPrefix the client's key prefix, which starts its own channel's name */
    ZkWakeUps(ZkSession session, String keyPrefix) {
        this.session = session;
        String emptyClient = WakeUpSource.clientChannel(keyPrefix, "");
        this.clientChannelStart = emptyClient.substring(0, emptyClient.length() - 1);
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        if (!channel.endsWith(RELEASED)) {
            if (channel.startsWith(clientChannelStart)) {
                clientChannel = channel;
            }
            return CompletableFuture.completedFuture(null);
        }
        String path = ZkNodes.lockPath(channel.substring(0, channel.length() - RELEASED.length()));
        Watcher watcher = watches.computeIfAbsent(channel, c -> event -> onEvent(c, path, event));
        return ZkSession.watchTree(session.handle(), path, watcher);
    }

    @Override
    public void unsubscribe(String channel) {
        Watcher watcher = watches.remove(channel);
        if (watcher != null) {
            ZkSession.unwatchTree(session.handle(), ZkNodes.lockPath(channel.substring(0, channel.length()
                    - RELEASED.length())), watcher);
        }
    }

    private void onEvent(String channel, String path, WatchedEvent event) {
        String deleted = event.getPath();
        if (event.getType() != Watcher.Event.EventType.NodeDeleted || deleted == null || !deleted.startsWith(path + "/")) {
            return;
        }
        if (recentlyDeleted.add(deleted)) {
            deletionOrder.add(deleted);
            while (deletionOrder.size() > RECENT_DELETIONS) {
                String old = deletionOrder.poll();
                if (old != null) {
                    recentlyDeleted.remove(old);
                }
            }
        }
        String waiter = waiterByPredecessor.remove(deleted);
        if (waiter != null) {
            predecessorByWaiter.remove(waiter, deleted);
        }
        Listener current = listener;
        if (current != null && watches.containsKey(channel)) {
            current.onMessage(channel, deleted.substring(path.length() + 1) + ":" + (waiter == null ? "" : waiter));
        }
    }

    /**
     * The queued waiter {@code waiterId} of this client waits for the deletion of the node at
     * {@code predecessorPath}, the one just before its own: that deletion's message names it. When
     * the deletion was heard already, it is told at once.
     */
    void waitsFor(String channel, String waiterId, String predecessorPath) {
        String previous = predecessorByWaiter.put(waiterId, predecessorPath);
        if (previous != null && !previous.equals(predecessorPath)) {
            waiterByPredecessor.remove(previous, waiterId);
        }
        waiterByPredecessor.put(predecessorPath, waiterId);
        if (recentlyDeleted.contains(predecessorPath) && waiterByPredecessor.remove(predecessorPath, waiterId)) {
            predecessorByWaiter.remove(waiterId, predecessorPath);
            Listener current = listener;
            if (current != null) {
                current.onMessage(channel, predecessorPath.substring(predecessorPath.lastIndexOf('/') + 1) + ":" + waiterId);
            }
        }
    }

    /** The waiter holds the lock now, or left its queue: no deletion is for it any more. */
    void stopsWaiting(String waiterId) {
        String predecessor = predecessorByWaiter.remove(waiterId);
        if (predecessor != null) {
            waiterByPredecessor.remove(predecessor, waiterId);
        }
    }

    /** A forced release of one of this client's holds: "key\towner" on the client's channel. */
    void tellClient(String key, String owner) {
        Listener current = listener;
        String channel = clientChannel;
        if (current != null && channel != null) {
            current.onMessage(channel, key + "\t" + owner);
        }
    }

    @Override
    public void reconnected() {
        Listener current = listener;
        if (current != null) {
            current.onReconnected();
        }
    }

    @Override
    public void newSession(ZooKeeper handle) {
        watches.forEach((channel, watcher) -> ZkSession.watchTree(handle,
                ZkNodes.lockPath(channel.substring(0, channel.length() - RELEASED.length())), watcher));
        reconnected();
    }

    /** Whether a waiter of this client watches the lock: its next attempt asks before it queues. */
    boolean isWatched(String channel) {
        return watches.containsKey(channel);
    }
}
