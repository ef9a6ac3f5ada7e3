package dev.dlock.internal.zookeeper;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import dev.dlock.internal.store.NodeFailure;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's ZooKeeper session and its asynchronous calls as futures (completed on ZooKeeper's
 * event thread: whoever chains on them must not block). One session at a time: when the ensemble
 * expires it, a new one is opened at once and the listeners are told, since every ephemeral node of
 * the old one is gone. Requests of one session run in the order they were sent, across reconnects,
 * which the store relies on (a cleanup sent after a create whose reply was lost sees that create).
 */
final class ZkSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZkSession.class);

    /** Told of the session's changes, on ZooKeeper's event thread. */
    interface Listener {
        /** The connection is back within the same session: watch events may have been missed. */
        void reconnected();

        /** The old session expired and a new one serves: its ephemeral nodes are gone. */
        void newSession(ZooKeeper handle);
    }

    private final String connectString;
    private final int requestedTimeoutMs;
    private final String authScheme;
    private final byte[] authCredentials;
    private final LongSupplier nanoTime;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private volatile ZooKeeper handle;
    private volatile boolean connected;
    private volatile boolean closed;
    private volatile boolean authFailed;
    /** When the connection was lost (monotonic nanos), while it is. */
    private volatile long disconnectedAtNanos;
    /** Set at a reconnect or a new session: the next read is preceded by a sync, so it sees the leader's latest writes. */
    private volatile boolean syncPending;
    private final List<ACL> acl;
    /** The latest request of the current session that the ensemble answered: its session and send time. */
    private final AtomicReference<Answered> lastAnswered = new AtomicReference<>(new Answered(0, 0));

    private record Answered(long sessionId, long sentNanos) {
    }

    private ZkSession(String connectString, int requestedTimeoutMs, String authScheme, byte[] authCredentials,
                      LongSupplier nanoTime) {
        this.connectString = connectString;
        this.requestedTimeoutMs = requestedTimeoutMs;
        this.authScheme = authScheme;
        this.authCredentials = authCredentials;
        this.nanoTime = nanoTime;
        this.acl = authScheme == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : ZooDefs.Ids.CREATOR_ALL_ACL;
    }

    /**
     * Connects and waits for the session.
     *
     * @throws LockBackendException no server of the ensemble answered within {@code connectTimeoutMs}, or the
     *     credentials were refused
     */
    static ZkSession open(String connectString, int sessionTimeoutMs, String authScheme, byte[] authCredentials,
                          long connectTimeoutMs, LongSupplier nanoTime) {
        ZkSession session = new ZkSession(connectString, sessionTimeoutMs, authScheme, authCredentials, nanoTime);
        session.handle = session.connect(connectTimeoutMs);
        return session;
    }

    private ZooKeeper connect(long timeoutMs) {
        CountDownLatch connectedOnce = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, requestedTimeoutMs, event -> onEvent(event, connectedOnce));
        } catch (IOException | IllegalArgumentException e) {
            throw new LockBackendException("could not use ZooKeeper at " + ZooKeeperStores.withoutChroot(connectString)
                    + ": " + e.getMessage(), e);
        }
        if (authScheme != null) {
            zk.addAuthInfo(authScheme, authCredentials);
        }
        try {
            if (!connectedOnce.await(timeoutMs, TimeUnit.MILLISECONDS) || authFailed) {
                closeQuietly(zk);
                String why = authFailed ? "the ensemble refused the " + authScheme + " credentials"
                        : "no server of the ensemble answered within " + timeoutMs + " ms";
                throw new LockBackendException("could not use ZooKeeper at " + ZooKeeperStores.withoutChroot(connectString)
                        + ": " + why, null, null, List.of(new NodeError(ZooKeeperStores.withoutChroot(connectString),
                        authFailed ? NodeError.Cause.ERROR_REPLY : NodeError.Cause.UNREACHABLE, why)));
            }
        } catch (InterruptedException e) {
            closeQuietly(zk);
            Thread.currentThread().interrupt();
            throw new LockBackendException("interrupted while connecting to ZooKeeper at " + connectString, e);
        }
        connected = true;
        return zk;
    }

    private void onEvent(WatchedEvent event, CountDownLatch connectedOnce) {
        if (event.getType() != Watcher.Event.EventType.None) {
            return;
        }
        KeeperState state = event.getState();
        switch (state) {
            case SyncConnected, ConnectedReadOnly -> {
                boolean wasDown = connectedOnce.getCount() == 0 && !connected;
                connected = true;
                connectedOnce.countDown();
                if (wasDown) {
                    syncPending = true;
                    listeners.forEach(Listener::reconnected);
                }
            }
            case Disconnected -> {
                if (connected) {
                    disconnectedAtNanos = nanoTime.getAsLong();
                }
                connected = false;
            }
            case AuthFailed -> {
                authFailed = true;
                connectedOnce.countDown();
            }
            case Expired -> {
                connected = false;
                if (!closed && connectedOnce.getCount() == 0) {
                    renew();
                }
            }
            default -> {
            }
        }
    }

    /** The ensemble expired the session: a new one, on a thread of its own (not ZooKeeper's event thread). */
    private void renew() {
        Thread opener = new Thread(() -> {
            long backoffMs = 50;
            while (!closed) {
                try {
                    ZooKeeper fresh = connect(Math.max(1000, requestedTimeoutMs));
                    ZooKeeper old = handle;
                    handle = fresh;
                    closeQuietly(old);
                    syncPending = true;
                    LOG.warn("ZooKeeper at {} expired this client's session; a new one serves (0x{}), every hold of "
                            + "the old one is gone", ZooKeeperStores.withoutChroot(connectString),
                            Long.toHexString(fresh.getSessionId()));
                    listeners.forEach(listener -> listener.newSession(fresh));
                    return;
                } catch (LockBackendException e) {
                    try {
                        TimeUnit.MILLISECONDS.sleep(backoffMs);
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                    backoffMs = Math.min(1000, backoffMs * 2);
                }
            }
        }, "dlock-zookeeper-session");
        opener.setDaemon(true);
        opener.start();
    }

    void addListener(Listener listener) {
        listeners.add(listener);
    }

    ZooKeeper handle() {
        return handle;
    }

    long sessionId() {
        return handle.getSessionId();
    }

    boolean isClosed() {
        return closed;
    }

    boolean isConnected() {
        return connected && !closed;
    }

    /** The session timeout the ensemble granted, in milliseconds. */
    int negotiatedTimeoutMs() {
        return handle.getSessionTimeout();
    }

    List<ACL> acl() {
        return acl;
    }

    String address() {
        return ZooKeeperStores.withoutChroot(connectString);
    }

    /** A sync first when the connection came back since the last read, so the read sees the latest writes. */
    CompletableFuture<Void> syncIfReconnected(String path) {
        if (!syncPending) {
            return CompletableFuture.completedFuture(null);
        }
        syncPending = false;
        return sync(path).whenComplete((synced, error) -> {
            if (error != null) {
                syncPending = true;
            }
        });
    }

    /**
     * The children of {@code path} after a sync: as the leader has them, so that a write the ensemble
     * committed through any server is seen, whichever server this session talks to.
     */
    CompletableFuture<List<String>> childrenAfterSync(String path) {
        return sync(path).thenCompose(synced -> children(path));
    }

    /** A sync: a read sent after it sees every write the leader committed before it. */
    CompletableFuture<Void> sync(String path) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        zk.sync(path, (rc, p, ctx) -> {
            answered(zk, sent, rc);
            if (rc == Code.OK.intValue()) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure(rc, p));
            }
        }, null);
        return done;
    }

    /** A created node: its full path and stat. */
    record Created(String path, Stat stat) {
    }

    CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        return create(handle, path, data, mode);
    }

    /**
     * As {@link #create}, only within the session {@code sessionId}: once a new session serves, the
     * create fails as the old session's requests do (session expired) and is not sent.
     */
    CompletableFuture<Created> create(String path, byte[] data, CreateMode mode, long sessionId) {
        ZooKeeper zk = handle;
        if (zk.getSessionId() != sessionId) {
            return CompletableFuture.failedFuture(failure(Code.SESSIONEXPIRED.intValue(), path));
        }
        return create(zk, path, data, mode);
    }

    private CompletableFuture<Created> create(ZooKeeper zk, String path, byte[] data, CreateMode mode) {
        CompletableFuture<Created> done = new CompletableFuture<>();
        long sent = nanoTime.getAsLong();
        zk.create(path, data, acl, mode, (rc, p, ctx, name, stat) -> {
            answered(zk, sent, rc);
            if (rc == Code.OK.intValue()) {
                done.complete(new Created(name, stat));
            } else {
                done.completeExceptionally(failure(rc, p));
            }
        }, null);
        return done;
    }

    /**
     * A delete of one node and the create of another, applied together or not at all (a local
     * handoff): the created node's path (under the chroot, as every path here), or null when
     * {@code deletePath} was gone (nothing applied).
     */
    CompletableFuture<String> deleteAndCreate(String deletePath, String createPath, byte[] data, CreateMode mode) {
        CompletableFuture<String> done = new CompletableFuture<>();
        List<Op> ops = List.of(Op.delete(deletePath, -1), Op.create(createPath, data, acl, mode));
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        zk.multi(ops, (rc, p, ctx, results) -> {
            answered(zk, sent, rc);
            if (rc == Code.OK.intValue()) {
                // the node's name under the parent asked for: a multi's result keeps the client's chroot in front
                // of the path (the client strips it from a create's reply only), and a handoff under a chroot
                // looked for its node where there is none, left it with its lease and stalled every waiter
                String created = ((OpResult.CreateResult) results.get(1)).getPath();
                done.complete(createPath.substring(0, createPath.lastIndexOf('/')) + created.substring(created.lastIndexOf('/')));
            } else if (rc == Code.NONODE.intValue()) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure(rc, rc == Code.NOAUTH.intValue() ? createPath : deletePath));
            }
        }, null);
        return done;
    }

    /** The children's names; empty when the node does not exist. */
    CompletableFuture<List<String>> children(String path) {
        return children(path, null);
    }

    /** As {@link #children(String)}, setting a one-time child watch on the node unless {@code watcher} is null. */
    CompletableFuture<List<String>> children(String path, Watcher watcher) {
        CompletableFuture<List<String>> done = new CompletableFuture<>();
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        AsyncCallback.Children2Callback callback = (rc, p, ctx, children, stat) ->
                settle(done, zk, sent, rc, p, children, List.of());
        if (watcher == null) {
            zk.getChildren(path, false, callback, null);
        } else {
            zk.getChildren(path, watcher, callback, null);
        }
        return done;
    }

    /** True when deleted, false when it did not exist or had another version. */
    CompletableFuture<Boolean> delete(String path, int version) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        zk.delete(path, version, (rc, p, ctx) -> {
            answered(zk, sent, rc);
            if (rc == Code.OK.intValue()) {
                done.complete(true);
            } else if (rc == Code.NONODE.intValue() || rc == Code.BADVERSION.intValue() || rc == Code.NOTEMPTY.intValue()) {
                done.complete(false);
            } else {
                done.completeExceptionally(failure(rc, p));
            }
        }, null);
        return done;
    }

    /** The node's new stat; null when it does not exist. */
    CompletableFuture<Stat> setData(String path, byte[] data) {
        CompletableFuture<Stat> done = new CompletableFuture<>();
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        zk.setData(path, data, -1, (rc, p, ctx, stat) -> settle(done, zk, sent, rc, p, stat, null), null);
        return done;
    }

    /** A node's data and stat. */
    record Data(byte[] bytes, Stat stat) {
    }

    /** The node's data; null when it does not exist. */
    CompletableFuture<Data> getData(String path) {
        CompletableFuture<Data> done = new CompletableFuture<>();
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        zk.getData(path, false, (rc, p, ctx, bytes, stat) -> settle(done, zk, sent, rc, p, new Data(bytes, stat), null), null);
        return done;
    }

    /** Sets a one-time watch on the node; its stat, or null (and no watch) when it does not exist. */
    CompletableFuture<Stat> watch(String path, Watcher watcher) {
        CompletableFuture<Stat> done = new CompletableFuture<>();
        ZooKeeper zk = handle;
        long sent = nanoTime.getAsLong();
        zk.exists(path, watcher, (rc, p, ctx, stat) -> settle(done, zk, sent, rc, p, stat, null), null);
        return done;
    }

    /**
     * Notes a reply of the ensemble itself (a result, not a lost connection or an ended session) to a
     * request sent at {@code sentNanos} on the handle serving now: the ensemble heard from this
     * session at that time or later.
     */
    private void answered(ZooKeeper zk, long sentNanos, int rc) {
        boolean fromEnsemble = rc == Code.OK.intValue() || rc == Code.NONODE.intValue() || rc == Code.NODEEXISTS.intValue()
                || rc == Code.BADVERSION.intValue() || rc == Code.NOTEMPTY.intValue();
        if (!fromEnsemble || zk != handle) {
            return;
        }
        Answered latest = new Answered(zk.getSessionId(), sentNanos);
        lastAnswered.accumulateAndGet(latest, (current, next) ->
                current.sessionId() != next.sessionId() || next.sentNanos() - current.sentNanos() > 0 ? next : current);
    }

    /**
     * When the latest request of session {@code sessionId} that the ensemble answered was sent
     * (monotonic nanos): the ensemble heard from the session then or later, so it keeps the session
     * at least its timeout from then. Empty when no request of that session was answered yet.
     */
    OptionalLong lastAnsweredSentNanos(long sessionId) {
        Answered latest = lastAnswered.get();
        return latest.sessionId() == sessionId && sessionId != 0 ? OptionalLong.of(latest.sentNanos()) : OptionalLong.empty();
    }

    /** Completes a read's future: OK with what was read, NONODE with {@code absent}, anything else as a failure. */
    private <T> void settle(CompletableFuture<T> done, ZooKeeper zk, long sentNanos, int rc, String path, T read, T absent) {
        answered(zk, sentNanos, rc);
        if (rc == Code.OK.intValue()) {
            done.complete(read);
        } else if (rc == Code.NONODE.intValue()) {
            done.complete(absent);
        } else {
            done.completeExceptionally(failure(rc, path));
        }
    }

    /** A persistent recursive watch of the node and everything under it, on the given handle. */
    static CompletableFuture<Void> watchTree(ZooKeeper zk, String path, Watcher watcher) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        zk.addWatch(path, watcher, AddWatchMode.PERSISTENT_RECURSIVE, (rc, p, ctx) -> {
            if (rc == Code.OK.intValue()) {
                done.complete(null);
            } else {
                done.completeExceptionally(KeeperException.create(Code.get(rc), p));
            }
        }, null);
        return done;
    }

    static void unwatchTree(ZooKeeper zk, String path, Watcher watcher) {
        zk.removeWatches(path, watcher, Watcher.WatcherType.Any, true, (rc, p, ctx) -> { }, null);
    }

    /** A reply's error code as dlock's failure: whether the request may have been applied, in words. */
    NodeFailure failure(int rc, String path) {
        Code code = Code.get(rc);
        KeeperException cause = KeeperException.create(code, path);
        NodeError.Cause kind = switch (code) {
            case CONNECTIONLOSS, OPERATIONTIMEOUT -> NodeError.Cause.TIMEOUT;
            case SESSIONEXPIRED, SESSIONMOVED -> NodeError.Cause.UNREACHABLE;
            case NOAUTH, AUTHFAILED -> NodeError.Cause.ERROR_REPLY;
            default -> NodeError.Cause.ERROR_REPLY;
        };
        String detail = switch (code) {
            case CONNECTIONLOSS -> "connection lost before the reply (the request may have been applied)";
            case SESSIONEXPIRED -> "the session expired (the request was not applied)";
            case NOAUTH -> "no permission (NOAUTH) on " + path + ": check the credentials and the node's ACL";
            default -> code.name().toLowerCase(java.util.Locale.ROOT) + " on " + path;
        };
        return new NodeFailure(kind, address(), detail, cause);
    }

    private static void closeQuietly(ZooKeeper zk) {
        try {
            zk.close(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("closing a ZooKeeper handle failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(handle);
    }

    long disconnectedAtNanos() {
        return disconnectedAtNanos;
    }
}
