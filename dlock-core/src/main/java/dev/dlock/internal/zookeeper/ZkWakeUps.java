package dev.dlock.internal.zookeeper;

import dev.dlock.internal.store.WakeUpSource;
import dev.dlock.internal.zookeeper.ZkNodes.Entry;
import java.util.ArrayList;
import java.util.List;
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
 * session's end) is one message per waiter of this client it lets through,
 * {@code <node>:<waiter>}, or {@code <node>:} when it lets none through. A queued waiter (each
 * waiter that may wait keeps a node) is filed with the nodes before its own that its last read showed
 * ({@link #waitsFor}); as they go, the verdict is taken again on what is left, and the waiter is named
 * once it would hold: the first in the queue for an exclusive node, no writer before it for a
 * reader, fewer permits before it than the count for a permit. So a deletion wakes exactly the
 * waiters it grants, never a herd (a release of a permit woke every permit waiter of every client,
 * each reading the children again). Nodes are only ever added behind a waiter's, so what its read
 * showed before it can only shrink. The node's name before the colon keeps two messages apart
 * (equal messages in a row count once) and is no token, so nobody takes a message for a handoff.
 * Creations and renewals wake nobody. The client's own channel needs no watch: the store tells it
 * of its holds' forced releases from a watch on each held node or on its lock's children
 * ({@link #tellClient}). After a
 * reconnect ZooKeeper sets the watches again by itself, after a new session this class does;
 * either way the listener hears of it (every waiter then reads again), since a deletion may have
 * gone unseen.
 */
final class ZkWakeUps implements WakeUpSource, ZkSession.Listener {

    private static final String RELEASED = ":released";

    private final ZkSession session;
    private final String clientChannelStart;
    /** The client's own channel, once subscribed. */
    private volatile String clientChannel;
    private final Map<String, Watcher> watches = new ConcurrentHashMap<>();
    private volatile Listener listener;
    /** This client's queued waiters by waiter id, with the nodes still before theirs. */
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();
    /** The waiter ids of this client's queued waiters that have the node at a path before theirs. */
    private final Map<String, Set<String>> waitersBehind = new ConcurrentHashMap<>();
    /** The waiters named because the deletions heard let them hold, with their node's path (see {@link #clearedToHold}). */
    private final Map<String, String> cleared = new ConcurrentHashMap<>();
    /**
     * The paths of the nodes deleted lately, so that a waiter filed behind a node after its deletion
     * was heard (a read that raced it) does not wait for it, and is woken at once when that lets it hold.
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
        List<String> granted = passedBy(deleted);
        Listener current = listener;
        if (current == null || !watches.containsKey(channel)) {
            return;
        }
        String node = deleted.substring(path.length() + 1);
        if (granted.isEmpty()) {
            current.onMessage(channel, node + ":");
        }
        granted.forEach(waiterId -> current.onMessage(channel, node + ":" + waiterId));
    }

    /** The waiters of this client that the deletion of {@code deleted} lets hold; they wait no more. */
    private List<String> passedBy(String deleted) {
        Set<String> behind = waitersBehind.remove(deleted);
        if (behind == null) {
            return List.of();
        }
        List<String> granted = new ArrayList<>(1);
        for (String waiterId : behind) {
            Waiting entry = waiting.get(waiterId);
            if (entry != null && entry.gone(deleted) && waiting.remove(waiterId, entry)) {
                unfile(waiterId, entry);
                cleared.put(waiterId, entry.myPath());
                granted.add(waiterId);
            }
        }
        return granted;
    }

    /**
     * The queued waiter {@code waiterId} of this client, at node {@code me} under {@code lockPath},
     * was refused: it is named by the deletion that leaves it holding, judged on {@code entries}, its
     * read of the lock's children. When the deletions heard already do, it is told at once.
     *
     * @param downgradeNode the name of its thread's own write hold's node, which does not block it, or null
     */
    void waitsFor(String channel, String waiterId, String lockPath, Entry me, List<Entry> entries, String downgradeNode) {
        stopsWaiting(waiterId);
        List<Entry> before = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.sequence() >= me.sequence()) {
                break;
            }
            if (!recentlyDeleted.contains(lockPath + "/" + entry.name())) {
                before.add(entry);
            }
        }
        Waiting entry = new Waiting(lockPath, me, before, downgradeNode);
        if (entry.wouldHold()) {
            cleared.put(waiterId, entry.myPath());
            tell(channel, me.name() + ":" + waiterId);
            return;
        }
        waiting.put(waiterId, entry);
        for (Entry node : before) {
            waitersBehind.computeIfAbsent(lockPath + "/" + node.name(), path -> ConcurrentHashMap.newKeySet()).add(waiterId);
        }
        // a deletion heard while this waiter was being filed found it not yet behind the node
        for (Entry node : before) {
            String nodePath = lockPath + "/" + node.name();
            if (recentlyDeleted.contains(nodePath) && entry.gone(nodePath) && waiting.remove(waiterId, entry)) {
                unfile(waiterId, entry);
                cleared.put(waiterId, entry.myPath());
                tell(channel, node.name() + ":" + waiterId);
                return;
            }
        }
    }

    private void tell(String channel, String message) {
        Listener current = listener;
        if (current != null) {
            current.onMessage(channel, message);
        }
    }

    /**
     * Whether the deletions heard since the waiter's last read let it hold at its node
     * {@code nodePath}, and that node was not deleted since (asked once: the answer is forgotten).
     * Its next attempt then need not read the children: nodes are only ever added behind its own, and
     * a reconnect, after which a deletion may have gone unseen, forgets every answer.
     */
    boolean clearedToHold(String waiterId, String nodePath) {
        return cleared.remove(waiterId, nodePath) && !recentlyDeleted.contains(nodePath);
    }

    /** The waiter holds the lock now, or left its queue: no deletion is for it any more. */
    void stopsWaiting(String waiterId) {
        cleared.remove(waiterId);
        Waiting entry = waiting.remove(waiterId);
        if (entry != null) {
            unfile(waiterId, entry);
        }
    }

    private void unfile(String waiterId, Waiting entry) {
        for (String nodePath : entry.paths()) {
            waitersBehind.computeIfPresent(nodePath, (path, ids) -> {
                ids.remove(waiterId);
                return ids.isEmpty() ? null : ids;
            });
        }
    }

    /** A queued waiter's node and the nodes before it not yet deleted, as far as this client has heard. */
    private static final class Waiting {
        private final String lockPath;
        private final Entry me;
        private final List<Entry> before;
        private final String downgradeNode;

        Waiting(String lockPath, Entry me, List<Entry> before, String downgradeNode) {
            this.lockPath = lockPath;
            this.me = me;
            this.before = before;
            this.downgradeNode = downgradeNode;
        }

        synchronized boolean wouldHold() {
            List<Entry> queue = new ArrayList<>(before);
            queue.add(me);
            return ZkNodes.verdict(queue, me, downgradeNode) instanceof ZkNodes.Granted;
        }

        /** Takes the deleted node out: whether the waiter would hold now. */
        synchronized boolean gone(String deletedPath) {
            before.removeIf(entry -> (lockPath + "/" + entry.name()).equals(deletedPath));
            return wouldHold();
        }

        String myPath() {
            return lockPath + "/" + me.name();
        }

        synchronized List<String> paths() {
            return before.stream().map(entry -> lockPath + "/" + entry.name()).toList();
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
        cleared.clear();
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
