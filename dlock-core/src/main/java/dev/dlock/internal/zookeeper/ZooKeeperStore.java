package dev.dlock.internal.zookeeper;

import dev.dlock.LockBackendException;
import dev.dlock.LockHolder;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.ClientRecordEntry;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.NodeFailure;
import dev.dlock.internal.store.QueuePassRuns;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.StoreHandoff;
import dev.dlock.internal.store.WakeUpSource;
import dev.dlock.internal.zookeeper.ZkNodes.Entry;
import dev.dlock.internal.zookeeper.ZkNodes.NodeData;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in a ZooKeeper ensemble (layout: {@link ZkNodes}). An attempt creates its ephemeral
 * sequential node and reads the lock's children: it holds the lock when the nodes before it allow
 * ({@link ZkNodes#verdict}); else an attempt that does not wait deletes its node again and a waiter
 * (of any kind) keeps it, its place in the queue. A plain attempt of a client that already watches
 * the lock reads the children first and creates nothing while the lock is taken.
 * The fencing token is the {@code czxid} of the holder's node: the zxid of its creation, which only
 * grows over the whole ensemble, across leader changes, session expiries and the removal of the
 * lock's emptied parent.
 *
 * <p>The session is the liveness lease: a hold's node goes with its session. A grant or renewal is
 * trusted on this client's clock for the lease or the negotiated session timeout, whichever is
 * shorter (a hundredth less, for the clocks' rates), counted from the request's start, before
 * which the ensemble cannot have heard from the client last; so a holder cut off is told before the
 * ensemble can expire its session. An explicit lease is kept in the node's data and judged on the
 * ensemble's clock: a contender deletes a holder's node (at its version, so a renewal in between
 * wins) only once the node's {@code mtime} plus its lease lies before the {@code mtime} of a fresh
 * write of its own.
 */
final class ZooKeeperStore implements LockStore {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperStore.class);
    private static final int EXPIRED_HOLDERS_PER_ATTEMPT = 3;

    private final ZkSession session;
    private final ZkWakeUps wakeUps;
    private final ZkClientRecords records;
    private final LongSupplier nanoTime;
    private final String keyPrefix;
    private final long commandTimeoutMs;
    private final ExecutorService replies;
    /** This client's holds by owner id, until their node's deletion is confirmed. */
    private final ConcurrentHashMap<String, HeldNode> held = new ConcurrentHashMap<>();
    /** The ensemble's clock as last seen (the mtime of a write) and when (monotonic nanos). */
    private volatile long ensembleMs;
    private volatile long ensembleAtNanos;

    /** One hold of this client: its node, token and hold count. */
    private static final class HeldNode {
        final String key;
        final String path;
        final long czxid;
        /** The node's passes between threads of this client before this hold (see {@link ZkNodes#token}). */
        final int pass;
        final long token;
        final long session;
        final String holder;
        volatile int count;
        volatile long leaseMs;
        /** When the request that last confirmed the node on the ensemble (its grant or renewal) was sent. */
        volatile long confirmedAtNanos;
        /** Its deletion was sent by this client: a deletion seen then is no forced release. */
        volatile boolean releasing;

        HeldNode(String key, String path, long czxid, int pass, long session, String holder, long leaseMs,
                 long confirmedAtNanos) {
            this.key = key;
            this.path = path;
            this.czxid = czxid;
            this.pass = pass;
            this.token = ZkNodes.token(czxid, pass);
            this.session = session;
            this.holder = holder;
            this.leaseMs = leaseMs;
            this.confirmedAtNanos = confirmedAtNanos;
            this.count = 1;
        }
    }

    /** The attempts under way, by owner id and by waiter id (see {@link #settled}). */
    private final ConcurrentHashMap<String, CompletableFuture<?>> attempts = new ConcurrentHashMap<>();
    /** The nodes this client's waiters keep in a queue, by waiter id, until granted or left. */
    private final ConcurrentHashMap<String, String> queuedNodes = new ConcurrentHashMap<>();
    /**
     * Waiter ids whose attempt to queue failed without an answer: a node of theirs may exist that
     * {@link #queuedNodes} does not know. The waiter's next attempt looks for it before creating one,
     * and a pass to such a waiter deletes it (see {@link #pass}): left there, it stood at the head of
     * the queue while the client lived (a leader killed under contention left four, and every waiter
     * starved).
     */
    private final Set<String> mayBeQueued = ConcurrentHashMap.newKeySet();
    /** Their czxids, by path: a waiter granted later holds at once, its stamp sent behind the grant. */
    private final ConcurrentHashMap<String, Long> queuedCzxids = new ConcurrentHashMap<>();
    /** Per lock key, this client's current run of passes without asking the ensemble (see {@link #handOffNode}). */
    private final QueuePassRuns passes = new QueuePassRuns();

    ZooKeeperStore(ZkSession session, ZkWakeUps wakeUps, LongSupplier nanoTime, String keyPrefix, long commandTimeoutMs,
                   ExecutorService replies) {
        this.session = session;
        this.wakeUps = wakeUps;
        this.records = new ZkClientRecords(session);
        this.nanoTime = nanoTime;
        this.keyPrefix = keyPrefix;
        this.commandTimeoutMs = commandTimeoutMs;
        this.replies = replies;
    }

    /**
     * A deletion's message names the waiter whose predecessor went and carries no token: it wakes,
     * never hands over. A waiter's node is found again by its waiter id (a retry after a lost reply
     * finds its own node), so a waiter keeps its id after a failed attempt: with a fresh one, the
     * first node stayed when the leave of the old id missed it (a leader killed under contention left
     * four such nodes at the head of the queue, and every waiter of the lock starved).
     */
    @Override
    public boolean handsOverByNamingWaiters() {
        return false;
    }

    /**
     * Every waiter keeps a node in the lock's queue, and a deletion names each waiter of this client
     * it lets hold (see {@link ZkWakeUps}): a released permit wakes one permit waiter, not all.
     */
    @Override
    public boolean queuesEveryWaiter() {
        return true;
    }

    @Override
    public String productName() {
        return "ZooKeeper";
    }

    @Override
    public String describe() {
        return session.address();
    }

    @Override
    public WakeUpSource wakeUps() {
        return wakeUps;
    }

    // ---- acquire

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = nanoTime.getAsLong();
        CompletableFuture<AcquireReply> reply = request.reentry() ? reenter(request, startNanos)
                : session.syncIfReconnected(ZkNodes.LOCKS).thenCompose(synced -> attempt(target, kind, request, startNanos));
        if (!request.reentry()) {
            underWay(request.owner(), reply);
            underWay(request.waiterId(), reply);
        }
        return out(reply, request.reentry() ? "re-entry" : "acquire", target).handle((granted, error) -> {
            if (error == null) {
                return granted;
            }
            LockBackendException failure = (LockBackendException) Failures.forCaller(error);
            if (!request.reentry() && outcomeUnknown(error)) {
                if (!request.waiterId().isEmpty()) {
                    mayBeQueued.add(request.waiterId());
                }
                // sent once the attempt has settled (see settled): it then sees the attempt's node if one was created
                abandon(target, kind, request.owner());
                throw Failures.extend(failure, "; a best-effort release was sent");
            }
            throw failure;
        });
    }

    /**
     * Files an attempt under way under {@code id} (its owner id, its waiter id) until its reply has
     * come or its request failed.
     */
    private void underWay(String id, CompletableFuture<?> attempt) {
        if (id.isEmpty()) {
            return;
        }
        attempts.merge(id, attempt, (earlier, later) -> CompletableFuture.allOf(earlier, later));
        attempt.whenComplete((done, error) ->
                attempts.computeIfPresent(id, (key, pending) -> pending.isDone() ? null : pending));
    }

    /**
     * Completes once every attempt filed under {@code id} has settled. A cleanup (abandon, leave) waits
     * for it: an attempt is a chain of requests (a sync after a reconnect, a read of the children, the
     * create), each sent when the one before it has answered, so a step still waiting for the
     * reconnection when the caller gives up sends the create only after it. A cleanup sent at once
     * would run before that create, find nothing, and the node would stay for as long as the session
     * lives: a waiter's node, with no owner in it, is never taken for an expired hold, and it stood
     * before every later waiter of the lock (a paused ensemble left one, its client's session surviving
     * the pause). Once the attempt has settled, whatever it created was sent before the cleanup, which
     * the session's ordering then lets see it, and what it was granted is filed as held.
     */
    private CompletableFuture<Void> settled(String id) {
        CompletableFuture<?> pending = id.isEmpty() ? null : attempts.get(id);
        return pending == null ? CompletableFuture.completedFuture(null) : pending.handle((done, error) -> null);
    }

    private CompletableFuture<AcquireReply> reenter(AcquireRequest request, long startNanos) {
        HeldNode node = held.get(request.owner());
        long sessionId = session.sessionId();
        if (node == null || node.session != sessionId) {
            return CompletableFuture.completedFuture(new AcquireReply.LostOnReentry());
        }
        return session.setData(node.path, new NodeData(request.owner(), node.leaseMs, node.count + 1, node.pass, node.holder)
                        .bytes())
                .thenApply(stat -> {
                    if (stat == null || stat.getEphemeralOwner() != sessionId) {
                        return new AcquireReply.LostOnReentry();
                    }
                    observeClock(stat);
                    node.confirmedAtNanos = startNanos;
                    node.count++;
                    return new AcquireReply.Granted(node.token, node.count, validUntilNanos(startNanos, request.leaseMs()));
                });
    }

    /** One attempt of a new hold: see the class comment. */
    private CompletableFuture<AcquireReply> attempt(LockTarget target, LockKind kind, AcquireRequest request,
                                                    long startNanos) {
        CompletableFuture<AcquireReply> heldAlready = grantedByDeletions(target, kind, request);
        if (heldAlready != null) {
            return heldAlready;
        }
        Attempt attempt = new Attempt(target, kind, request, startNanos, session.sessionId());
        boolean mayHaveNode = attempt.queued && (queuedNodes.containsKey(request.waiterId())
                || mayBeQueued.contains(request.waiterId()));
        if (!mayHaveNode && ((attempt.queued && request.mayWait()) || !wakeUps.isWatched(target.channel()))) {
            // nothing of this acquisition is queued yet, and a waiter queues whatever a read would show; once an
            // attempt of it failed without an answer, its node may exist: created again, it would stand behind the
            // first, which no cleanup of the waiter's owner ids finds and which, once rewritten as a waiter's, is
            // never taken for an expired hold
            return attempt.createAndDecide();
        }
        return session.children(attempt.lockPath).thenCompose(children -> {
            List<Entry> entries = attempt.live(children);
            if (attempt.queued) {
                Entry mine = entries.stream().filter(e -> e.session() == attempt.sessionId
                        && e.id().equals(request.waiterId())).findFirst().orElse(null);
                if (mine != null) {
                    mayBeQueued.remove(request.waiterId());
                    queuedNodes.put(request.waiterId(), attempt.lockPath + "/" + mine.name());
                    return attempt.decide(mine, entries, 0);
                }
            }
            ZkNodes.Verdict verdict = ZkNodes.verdictIfAdded(entries, attempt.mode.charAt(0), request.permits(),
                    attempt.downgradeNode);
            if (verdict instanceof ZkNodes.PermitsDiffer differ) {
                return CompletableFuture.completedFuture(new AcquireReply.PermitsDiffer(differ.stored()));
            }
            if (verdict instanceof ZkNodes.Blocked blocked && !(attempt.queued && request.mayWait())) {
                return attempt.busy(blocked.by(), null, 0);
            }
            return attempt.createAndDecide();
        });
    }

    /**
     * A queued waiter whose node the deletions heard since its last read left holding (see
     * {@link ZkWakeUps#clearedToHold}) holds without reading the children again: a handoff to a waiter
     * of another client costs the release's delete and its event, no read. Its grant is trusted from
     * the send time of the session's latest request the ensemble answered (which kept the session at
     * least its timeout from then), not from now, and only while that leaves over half the grant's
     * window; else, or off this session or its connection, it reads as any attempt does. Null then.
     */
    private CompletableFuture<AcquireReply> grantedByDeletions(LockTarget target, LockKind kind, AcquireRequest request) {
        String myPath = request.waiterId().isEmpty() ? null : queuedNodes.get(request.waiterId());
        Long czxid = myPath == null ? null : queuedCzxids.get(myPath);
        if (czxid == null || !session.isConnected() || !wakeUps.clearedToHold(request.waiterId(), myPath)) {
            return null;
        }
        long sessionId = session.sessionId();
        Entry me = ZkNodes.parse(myPath.substring(myPath.lastIndexOf('/') + 1));
        OptionalLong answeredAt = session.lastAnsweredSentNanos(sessionId);
        if (me == null || me.session() != sessionId || answeredAt.isEmpty()
                || nanoTime.getAsLong() - answeredAt.getAsLong() > validUntilNanos(0, request.leaseMs()) / 2) {
            return null;
        }
        Attempt attempt = new Attempt(target, kind, request, answeredAt.getAsLong(), sessionId);
        return attempt.decide(me, List.of(me), 0);
    }

    /** One attempt's state: its lock, its node's name and what it decides from. */
    private final class Attempt {
        final LockTarget target;
        final LockKind kind;
        final AcquireRequest request;
        final long startNanos;
        final long sessionId;
        final String lockPath;
        final String mode;
        /** Whether the attempt keeps its node while it waits, found again by its waiter id. */
        final boolean queued;
        final String clientPrefix;
        final String downgradeNode;
        /** The node this attempt created with the grant's data already in it (no queued kind's), else null. */
        Entry createdGranted;
        /** The child watch its create's read of the children set, which then watches its hold; else null. */
        HoldWatch holdWatch;

        Attempt(LockTarget target, LockKind kind, AcquireRequest request, long startNanos, long sessionId) {
            this.target = target;
            this.kind = kind;
            this.request = request;
            this.startNanos = startNanos;
            this.sessionId = sessionId;
            this.lockPath = ZkNodes.lockPath(target.key());
            this.mode = ZkNodes.mode(kind, request.permits());
            // the fair lock and a writer keep a node from their first attempt on; a reentrant waiter (queued
            // where the store hands off locally, see handoff()) from the first attempt that may wait
            this.queued = !request.waiterId().isEmpty() && (kind.queued() || request.mayWait());
            this.clientPrefix = request.owner().substring(0, request.owner().indexOf(':') + 1);
            HeldNode downgrade = request.downgradeFrom().isEmpty() ? null : held.get(request.downgradeFrom());
            this.downgradeNode = downgrade == null ? null : downgrade.path.substring(downgrade.path.lastIndexOf('/') + 1);
        }

        /**
         * The lock's nodes, without those of this client's earlier sessions: such a node is left from a
         * session the ensemble expired (a follower behind the leader can still show it), never a hold.
         */
        List<Entry> live(List<String> children) {
            List<Entry> entries = new ArrayList<>(ZkNodes.entries(children));
            entries.removeIf(entry -> {
                boolean stale = entry.session() != sessionId && entry.id().startsWith(clientPrefix);
                if (stale) {
                    session.delete(lockPath + "/" + entry.name(), -1).exceptionally(error -> false);
                }
                return stale;
            });
            return entries;
        }

        /**
         * Creates the attempt's node and decides. A queued kind's node is created as a queued waiter's
         * and stamped when granted, and so is a waiter's on a lock this client watches (one of its
         * waiters was refused: it is contended); any other with the grant's data, so that an
         * uncontended grant costs no second write (a waiter's, kept, is rewritten as a waiter's then).
         */
        CompletableFuture<AcquireReply> createAndDecide() {
            boolean grantedForm = !kind.queued() && !(queued && request.mayWait() && wakeUps.isWatched(target.channel()));
            NodeData data = grantedForm ? new NodeData(request.owner(), request.leaseMs(), 1, request.holder())
                    : new NodeData("", 0, 0, request.holder());
            String id = queued ? request.waiterId() : request.owner();
            HoldWatch watch = new HoldWatch(lockPath);
            CompletableFuture<ZkSession.Created> creating = createUnderLock(ZkNodes.childPrefix(lockPath, mode, sessionId, id),
                    data.bytes(), 0);
            // sent before the create is answered: the ensemble answers a session's requests in the order sent, a
            // read after the writes before it, so the read sees the node, one round trip sooner than a read sent
            // on the create's reply (a create retried after making the lock's node is read again)
            CompletableFuture<List<String>> read = session.children(lockPath, watch);
            return creating.thenCompose(created -> {
                observeClock(created.stat());
                Entry me = ZkNodes.parse(created.path().substring(lockPath.length() + 1));
                createdGranted = grantedForm ? me : null;
                if (queued) {
                    mayBeQueued.remove(request.waiterId());
                    queuedNodes.put(request.waiterId(), created.path());
                    queuedCzxids.put(created.path(), created.stat().getCzxid());
                }
                watch.names(me.name());
                holdWatch = watch;
                return read.thenCompose(children -> children.contains(me.name()) ? CompletableFuture.completedFuture(children)
                                : session.children(lockPath, watch))
                        .thenCompose(children -> decide(me, live(children), 0)
                                .thenApply(reply -> reply instanceof AcquireReply.Granted granted && me == createdGranted
                                        ? granted(me, created.stat(), request.leaseMs()) : reply));
            });
        }

        /** Creates the node, first the lock's container node when it is missing (or was just removed). */
        private CompletableFuture<ZkSession.Created> createUnderLock(String prefix, byte[] data, int tries) {
            // only in the attempt's session: a node a new session created under the old one's name would be
            // looked for by no cleanup of the new session
            CompletableFuture<ZkSession.Created> created = session.create(prefix, data, CreateMode.EPHEMERAL_SEQUENTIAL,
                    sessionId);
            return created.exceptionallyCompose(error -> {
                if (tries < 3 && Failures.unwrap(error) instanceof NodeFailure failure
                        && failure.getCause() instanceof KeeperException.NoNodeException) {
                    return session.create(lockPath, new byte[0], CreateMode.CONTAINER)
                            .handle((made, exists) -> null)
                            .thenCompose(ignored -> createUnderLock(prefix, data, tries + 1));
                }
                return CompletableFuture.failedFuture(error);
            });
        }

        /** {@code me}'s verdict, once the holders before it whose lease ran out on the ensemble's clock are gone. */
        CompletableFuture<AcquireReply> decide(Entry me, List<Entry> entries, int expiredSoFar) {
            String myPath = lockPath + "/" + me.name();
            if (entries.stream().noneMatch(entry -> entry.name().equals(me.name()))) {
                // force-released (or its session ended) before it could decide
                return CompletableFuture.completedFuture(new AcquireReply.Busy(1, false));
            }
            ZkNodes.Verdict verdict = ZkNodes.verdict(entries, me, downgradeNode);
            if (verdict instanceof ZkNodes.Granted) {
                if (me == createdGranted) {
                    // the caller completes the grant with its node's stat
                    return CompletableFuture.completedFuture(new AcquireReply.Granted(0, 1, 0));
                }
                byte[] stamp = new NodeData(request.owner(), request.leaseMs(), 1, request.holder()).bytes();
                Long czxid = queuedCzxids.get(myPath);
                if (czxid != null) {
                    // this waiter's node, at the head: held now. The stamp follows, ahead of anything this client
                    // sends next; meanwhile the node, with no owner in it, is never taken for an expired hold
                    session.setData(myPath, stamp).thenAccept(stat -> {
                        if (stat != null) {
                            observeClock(stat);
                        }
                    }).exceptionally(error -> null);
                    return CompletableFuture.completedFuture(granted(me, czxid, request.leaseMs()));
                }
                return session.setData(myPath, stamp)
                        .thenApply(stat -> {
                            if (stat == null) {
                                return new AcquireReply.Busy(1, false);
                            }
                            observeClock(stat);
                            return granted(me, stat, request.leaseMs());
                        });
            }
            if (verdict instanceof ZkNodes.PermitsDiffer differ) {
                return session.delete(myPath, -1)
                        .thenApply(deleted -> new AcquireReply.PermitsDiffer(differ.stored()));
            }
            Entry by = ((ZkNodes.Blocked) verdict).by();
            if (queued && request.mayWait()) {
                // decided on ZooKeeper's event thread, before it hands on any later deletion: none is missed
                wakeUps.waitsFor(target.channel(), request.waiterId(), lockPath, me, entries, downgradeNode);
            }
            return busy(by, me, expiredSoFar);
        }

        /**
         * Refused because of {@code by}: unless its lease ran out on the ensemble's clock (it is
         * then deleted and the attempt decides again), a plain attempt deletes its own node.
         */
        CompletableFuture<AcquireReply> busy(Entry by, Entry me, int expiredSoFar) {
            String byPath = lockPath + "/" + by.name();
            return session.getData(byPath).thenCompose(found -> {
                if (found == null) {
                    return refuse(me, 1);
                }
                NodeData data = NodeData.of(found.bytes());
                Stat stat = found.stat();
                long leftMs = data.count() > 0 && data.leaseMs() > 0 ? stat.getMtime() + data.leaseMs() - ensembleNowMs() : -1;
                if (leftMs >= 0 || data.count() == 0 || expiredSoFar >= EXPIRED_HOLDERS_PER_ATTEMPT) {
                    return refuse(me, leftMs >= 0 ? Math.max(1, leftMs) : request.waiterTimeoutMs() / 3 + 1);
                }
                return freshEnsembleNowMs().thenCompose(nowMs -> {
                    if (stat.getMtime() + data.leaseMs() >= nowMs) {
                        return refuse(me, Math.max(1, stat.getMtime() + data.leaseMs() - nowMs));
                    }
                    LOG.debug("lock '{}': the lease of {} ran out on the ensemble's clock; deleting it", target.name(), byPath);
                    return session.delete(byPath, stat.getVersion()).thenCompose(deleted -> {
                        if (me == null) {
                            return createAndDecide();
                        }
                        return session.children(lockPath).thenCompose(children -> decide(me, live(children), expiredSoFar + 1));
                    });
                });
            });
        }

        private CompletableFuture<AcquireReply> refuse(Entry me, long retryAfterMs) {
            AcquireReply busy = new AcquireReply.Busy(retryAfterMs, false);
            if (me == null || (queued && request.mayWait())) {
                if (me != null && me == createdGranted) {
                    // kept as a waiter's node: it must not look like a hold
                    return session.setData(lockPath + "/" + me.name(), new NodeData("", 0, 0, request.holder()).bytes())
                            .thenApply(stat -> busy);
                }
                return CompletableFuture.completedFuture(busy);
            }
            return session.delete(lockPath + "/" + me.name(), -1).thenApply(deleted -> busy);
        }

        /** Files the grant of {@code me} (whose stat is {@code stat}) and watches its node for a forced release. */
        AcquireReply.Granted granted(Entry me, Stat stat, long leaseMs) {
            return granted(me, stat.getCzxid(), leaseMs);
        }

        AcquireReply.Granted granted(Entry me, long czxid, long leaseMs) {
            String path = lockPath + "/" + me.name();
            HeldNode node = new HeldNode(target.key(), path, czxid, 0, sessionId, request.holder(), leaseMs, startNanos);
            held.put(request.owner(), node);
            queuedCzxids.remove(path);
            mayBeQueued.remove(request.waiterId());
            if (queued) {
                wakeUps.stopsWaiting(request.waiterId());
                queuedNodes.remove(request.waiterId(), path);
            }
            String owner = request.owner();
            if (holdWatch != null) {
                holdWatch.watches(node, owner);
                return new AcquireReply.Granted(node.token, 1, validUntilNanos(startNanos, leaseMs));
            }
            watchOwnNode(node, owner).thenAccept(stat -> {
                // sent before any release of the hold: a node gone already was deleted by someone else
                if (stat == null) {
                    forcedOut(node, owner);
                }
            }).exceptionally(error -> null);
            return new AcquireReply.Granted(node.token, 1, validUntilNanos(startNanos, leaseMs));
        }
    }

    /**
     * A hold's node is gone, and not by its own release (a forced release, its session's end): the
     * hold leaves this client and its owner is told on the client's channel, once.
     */
    private void forcedOut(HeldNode node, String owner) {
        if (!node.releasing && held.remove(owner, node)) {
            wakeUps.tellClient(node.key, owner);
        }
    }

    /**
     * A one-time watch on a hold's own node whose deletion tells its owner of a forced release; the
     * watch's reply is the node's stat, null when the node is gone already.
     */
    private CompletableFuture<Stat> watchOwnNode(HeldNode node, String owner) {
        return session.watch(node.path, event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                forcedOut(node, owner);
            }
        });
    }

    /**
     * How a hold granted by its create's read learns of a forced release: the child watch that read
     * set on the lock's node, instead of a watch on its own node (one request fewer per uncontended
     * pair). A change among the lock's children while the hold lasts is checked by reading them again,
     * with the watch set again: a hold whose node is gone is told on the client's channel. A change
     * heard before the grant was filed is checked once it is.
     */
    private final class HoldWatch implements Watcher {
        private final String lockPath;
        private volatile String nodeName;
        private HeldNode node;
        private String owner;
        private boolean changedBeforeHeld;

        HoldWatch(String lockPath) {
            this.lockPath = lockPath;
        }

        /** The node it watches, once its create is answered (its read may be sent before that). */
        void names(String createdNode) {
            nodeName = createdNode;
        }

        synchronized void watches(HeldNode held, String heldBy) {
            node = held;
            owner = heldBy;
            if (changedBeforeHeld) {
                check();
            }
        }

        @Override
        public synchronized void process(WatchedEvent event) {
            if (event.getType() == Watcher.Event.EventType.None) {
                return; // the connection's state: the client sets its watches again when it reconnects
            }
            if (node == null) {
                changedBeforeHeld = true;
                return;
            }
            check();
        }

        private void check() {
            HeldNode current = node;
            String heldBy = owner;
            if (current.releasing || held.get(heldBy) != current) {
                return;
            }
            session.children(lockPath, this).thenAccept(children -> {
                if (!children.contains(nodeName)) {
                    forcedOut(current, heldBy);
                }
            }).exceptionally(error -> null);
        }
    }

    // ---- local handoff

    @Override
    public Optional<StoreHandoff> handoff() {
        return Optional.of(localHandoff);
    }

    /**
     * The last release of a reentrant hold whose client has a thread parked on the lock: the hold's
     * node is deleted and a node for that thread created in one {@code multi}, at the back of the
     * queue. The thread holds the lock when its node is at the head, that is when no other node came
     * before it: no other client waits, so the handoff passes nobody. Otherwise its node goes again and
     * the lock is the first queued waiter's, woken by the deletion as at any release. The token is the
     * new node's {@code czxid}, greater than any before, and smaller than any later node's: a local
     * handoff cannot pass the queue, since the waiters in it would then get smaller tokens.
     */
    private final StoreHandoff localHandoff = new StoreHandoff() {
        @Override
        public CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                                long leaseMs, String toWaiterId) {
            return handOff(target, fromOwner, ownSubscriptions, toOwner, leaseMs, toWaiterId, "");
        }

        @Override
        public CompletableFuture<Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions, String toOwner,
                                                long leaseMs, String toWaiterId, String toHolder) {
            return outWithinSession(handOffNode(target, fromOwner, toOwner, leaseMs, toWaiterId, toHolder), "release", target);
        }
    };

    private CompletableFuture<StoreHandoff.Reply> handOffNode(LockTarget target, String fromOwner, String toOwner,
                                                               long leaseMs, String toWaiterId, String toHolder) {
        long startNanos = nanoTime.getAsLong();
        long sessionId = session.sessionId();
        HeldNode from = held.get(fromOwner);
        StoreHandoff.Reply notOwner = new StoreHandoff.Reply(null, StoreHandoff.Outcome.NOT_OWNER, "");
        if (from == null || from.session != sessionId) {
            if (from != null) {
                held.remove(fromOwner, from);
            }
            return CompletableFuture.completedFuture(notOwner);
        }
        if (from.pass < ZkNodes.MAX_PASS && passes.mayPass(target.key(), startNanos)) {
            passes.passed(target.key(), startNanos);
            return CompletableFuture.completedFuture(pass(target, from, fromOwner, toOwner, leaseMs, toWaiterId, toHolder));
        }
        passes.ended(target.key());
        from.releasing = true;
        String lockPath = ZkNodes.lockPath(target.key());
        byte[] data = new NodeData(toOwner, leaseMs, 1, toHolder).bytes();
        return session.deleteAndCreate(from.path, ZkNodes.childPrefix(lockPath, "x", sessionId, toOwner), data,
                CreateMode.EPHEMERAL_SEQUENTIAL).thenCompose(path -> {
                    held.remove(fromOwner, from);
                    if (path == null) {
                        return CompletableFuture.completedFuture(notOwner);
                    }
                    return handedNode(target, lockPath, path, toOwner, leaseMs, toHolder, sessionId, startNanos);
                }).exceptionallyCompose(error -> {
                    if (!outcomeUnknown(error)) {
                        return CompletableFuture.failedFuture(error);
                    }
                    // the connection went before the reply (a leader election, say): once it is back within the
                    // session, the lock's children tell whether the multi was applied
                    return childrenInSession(lockPath, sessionId).thenCompose(children -> {
                        held.remove(fromOwner, from);
                        String fromName = from.path.substring(lockPath.length() + 1);
                        if (children != null && children.contains(fromName)) {
                            CompletableFuture<Long> freed = new CompletableFuture<>();
                            deleteConfirmed(from, false, freed);
                            return freed.thenApply(left -> new StoreHandoff.Reply(null, StoreHandoff.Outcome.RELEASED, ""));
                        }
                        Entry handed = children == null ? null : ZkNodes.entries(children).stream()
                                .filter(entry -> entry.session() == sessionId && entry.id().equals(toOwner))
                                .findFirst().orElse(null);
                        if (handed == null) {
                            return CompletableFuture.completedFuture(
                                    new StoreHandoff.Reply(null, StoreHandoff.Outcome.RELEASED, ""));
                        }
                        return handedNode(target, lockPath, lockPath + "/" + handed.name(), toOwner, leaseMs, toHolder,
                                sessionId, startNanos);
                    });
                });
    }

    /**
     * Passes the node of {@code from} to {@code toOwner} without asking the ensemble: the node stays at
     * the head, so the lock is this client's all along, and the new hold's token is the node's with one
     * more pass, greater than the last and smaller than any later node's. The hold is trusted as long as
     * the node was (from its last confirmation, for the shorter of the two leases: the ensemble judges
     * the old lease until the node's data says otherwise). The node's data (owner, lease, passes,
     * holder) is rewritten behind it, ahead of anything this client sends next.
     */
    private StoreHandoff.Reply pass(LockTarget target, HeldNode from, String fromOwner, String toOwner, long leaseMs,
                                    String toWaiterId, String toHolder) {
        long confirmedAt = from.confirmedAtNanos;
        // the waiter leaves the queue with the grant: a node of it left there would hold up everyone behind
        String queuedNode = toWaiterId.isEmpty() ? null : queuedNodes.remove(toWaiterId);
        if (queuedNode != null) {
            queuedCzxids.remove(queuedNode);
        }
        if (!toWaiterId.isEmpty()) {
            wakeUps.stopsWaiting(toWaiterId);
        }
        if (queuedNode != null) {
            inSession(() -> session.delete(queuedNode, -1), from.session, false).exceptionally(error -> false);
        } else if (!toWaiterId.isEmpty() && mayBeQueued.contains(toWaiterId)) {
            // an attempt of it failed without an answer: its node, if the ensemble applied the create, is found by id
            deleteOwn(target, toWaiterId, "leave the queue of");
        }
        HeldNode next = new HeldNode(from.key, from.path, from.czxid, from.pass + 1, from.session, toHolder,
                Math.min(from.leaseMs, leaseMs), confirmedAt);
        from.releasing = true;
        held.remove(fromOwner, from);
        held.put(toOwner, next);
        session.setData(next.path, new NodeData(toOwner, leaseMs, 1, next.pass, toHolder).bytes()).thenAccept(stat -> {
            if (stat != null) {
                observeClock(stat);
                next.leaseMs = leaseMs;
            }
        }).exceptionally(error -> null);
        watchOwnNode(next, toOwner).exceptionally(error -> null);
        return new StoreHandoff.Reply(new AcquireReply.Granted(next.token, 1,
                validUntilNanos(confirmedAt, Math.min(from.leaseMs, leaseMs))), StoreHandoff.Outcome.HANDED_TO_OWN_WAITER, "");
    }

    /**
     * The lock's children, read again after each lost connection while the session lasts; null once
     * it is gone (its nodes with it).
     */
    private CompletableFuture<List<String>> childrenInSession(String lockPath, long sessionId) {
        return inSession(() -> session.children(lockPath), sessionId, null);
    }

    /**
     * The call, sent again after each failure whose outcome is unknown (a lost connection) while the
     * session lasts: its reply, or {@code gone} once the session is gone (and its nodes with it).
     */
    private <T> CompletableFuture<T> inSession(java.util.function.Supplier<CompletableFuture<T>> call, long sessionId,
                                               T gone) {
        if (session.sessionId() != sessionId || session.isClosed()) {
            return CompletableFuture.completedFuture(gone);
        }
        return call.get().exceptionallyCompose(error -> {
            if (!outcomeUnknown(error)) {
                return CompletableFuture.failedFuture(error);
            }
            CompletableFuture<T> again = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS, replies).execute(() ->
                    inSession(call, sessionId, gone).whenComplete((value, failure) -> {
                        if (failure != null) {
                            again.completeExceptionally(failure);
                        } else {
                            again.complete(value);
                        }
                    }));
            return again;
        });
    }

    /** The node {@code path} a handoff created for {@code toOwner}: held when it is at the head, else deleted again. */
    private CompletableFuture<StoreHandoff.Reply> handedNode(LockTarget target, String lockPath, String path,
                                                             String toOwner, long leaseMs, String toHolder, long sessionId,
                                                             long startNanos) {
        Entry me = ZkNodes.parse(path.substring(lockPath.length() + 1));
        java.util.concurrent.atomic.AtomicReference<HeldNode> handed = new java.util.concurrent.atomic.AtomicReference<>();
        Watcher forcedRelease = event -> {
            HeldNode node = handed.get();
            if (node != null && event.getType() == Watcher.Event.EventType.NodeDeleted) {
                forcedOut(node, toOwner);
            }
        };
        // a lost connection here must not leave the node behind: every step is sent again within the session
        CompletableFuture<Stat> watched = inSession(() -> session.watch(path, forcedRelease), sessionId, null);
        return childrenInSession(lockPath, sessionId).thenCombine(watched, (children, stat) -> {
            List<Entry> entries = ZkNodes.entries(children == null ? List.of() : children);
            if (stat != null && ZkNodes.verdict(entries, me, null) instanceof ZkNodes.Granted) {
                observeClock(stat);
                HeldNode node = new HeldNode(target.key(), path, stat.getCzxid(), 0, sessionId, toHolder, leaseMs, startNanos);
                handed.set(node);
                held.put(toOwner, node);
                return new StoreHandoff.Reply(new AcquireReply.Granted(node.token, 1,
                        validUntilNanos(startNanos, leaseMs)), StoreHandoff.Outcome.HANDED_TO_OWN_WAITER, "");
            }
            // another waiter came first: the lock is its own; the parked thread queues again
            inSession(() -> session.delete(path, -1), sessionId, false).exceptionally(error -> false);
            Entry first = entries.isEmpty() || entries.get(0).name().equals(me.name()) ? null : entries.get(0);
            return first == null ? new StoreHandoff.Reply(null, StoreHandoff.Outcome.RELEASED, "")
                    : new StoreHandoff.Reply(null, StoreHandoff.Outcome.HANDED_TO_QUEUED, first.id());
        });
    }

    // ---- release and cleanup

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        HeldNode node = held.get(owner);
        if (node == null || node.session != session.sessionId()) {
            if (node != null) {
                held.remove(owner, node);
            }
            return CompletableFuture.completedFuture(-1L);
        }
        if (node.count > 1) {
            return out(session.setData(node.path, new NodeData(owner, node.leaseMs, node.count - 1, node.pass, node.holder).bytes())
                    .thenApply(stat -> {
                        if (stat == null) {
                            held.remove(owner, node);
                            return -1L;
                        }
                        return (long) --node.count;
                    }), "release", target);
        }
        node.releasing = true;
        passes.ended(node.key);
        CompletableFuture<Long> freed = new CompletableFuture<>();
        deleteConfirmed(node, false, freed);
        freed.thenAccept(left -> held.remove(owner, node));
        return outWithinSession(freed, "release", target);
    }

    /**
     * Deletes a hold's node, again after a lost connection (the session's requests run in order, so a
     * retry after the first one was applied finds nothing, which then also means freed), until it is
     * confirmed or the session is gone with the node. Local state goes only then.
     */
    private void deleteConfirmed(HeldNode node, boolean retried, CompletableFuture<Long> freed) {
        if (node.session != session.sessionId() || session.isClosed()) {
            freed.complete(retried ? 0L : -1L);
            return;
        }
        session.delete(node.path, -1).whenComplete((deleted, error) -> {
            if (error == null) {
                freed.complete(deleted || retried ? 0L : -1L);
            } else if (outcomeUnknown(error) || session.sessionId() != node.session) {
                CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS, replies)
                        .execute(() -> deleteConfirmed(node, true, freed));
            } else {
                freed.completeExceptionally(error);
            }
        });
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return settled(owner).thenCompose(settled -> {
            HeldNode node = held.remove(owner);
            if (node != null) {
                node.releasing = true;
                return bestEffort(inSession(() -> session.delete(node.path, -1), node.session, false), target, "release");
            }
            return deleteOwn(target, owner, "release");
        });
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        return settled(waiterId).thenCompose(settled -> deleteOwn(target, waiterId, "leave the queue of"));
    }

    /**
     * Deletes this session's nodes of the lock named by {@code id} that are no hold of this client,
     * again after a lost connection while the session lasts: a node left behind by a live session
     * (an attempt whose reply was lost, a waiter that left during an election) would stand before
     * every later waiter of the lock for as long as this client runs. Called once the attempts
     * under {@code id} have settled.
     */
    private CompletableFuture<Void> deleteOwn(LockTarget target, String id, String what) {
        wakeUps.stopsWaiting(id);
        mayBeQueued.remove(id);
        String queuedNode = queuedNodes.remove(id);
        if (queuedNode != null) {
            queuedCzxids.remove(queuedNode);
        }
        String lockPath = ZkNodes.lockPath(target.key());
        long sessionId = session.sessionId();
        // a sync first: after a reconnect the server now serving may lag behind the leader's commit of the create
        // sent on the lost connection, and its read would not show the node
        CompletableFuture<Void> done = inSession(() -> session.childrenAfterSync(lockPath)
                .thenCompose(children -> {
                    List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
                    for (Entry entry : ZkNodes.entries(children)) {
                        String path = lockPath + "/" + entry.name();
                        if (entry.session() == sessionId && entry.id().equals(id)
                                && held.values().stream().noneMatch(node -> node.path.equals(path))) {
                            deletes.add(session.delete(path, -1));
                        }
                    }
                    return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new));
                }), sessionId, null);
        return bestEffort(done, target, what);
    }

    private CompletableFuture<Void> bestEffort(CompletableFuture<?> call, LockTarget target, String what) {
        return call.handle((done, error) -> {
            if (error != null) {
                LOG.warn("could not {} lock '{}' on ZooKeeper at {}; the session's end frees it: {}", what, target.name(),
                        session.address(), Failures.unwrap(error).getMessage());
            }
            return (Void) null;
        }).thenApplyAsync(done -> done, replies);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        String lockPath = ZkNodes.lockPath(target.key());
        // After a sync, so that a grant the ensemble has committed is seen from any server. Besides the nodes
        // whose data says they hold, the nodes that hold by their place in the queue: a queued kind's grant is
        // stamped behind it, so a hold whose lock() has returned can still carry a waiter's data (an operator's
        // forceUnlock then found nothing to release).
        return out(session.childrenAfterSync(lockPath).thenCompose(children ->
                holdsAmong(lockPath, children).thenCompose(holds -> {
                    List<Entry> entries = ZkNodes.entries(children);
                    Set<String> paths = new java.util.LinkedHashSet<>();
                    holds.forEach(hold -> paths.add(hold.path()));
                    entries.stream().filter(entry -> ZkNodes.verdict(entries, entry, null) instanceof ZkNodes.Granted)
                            .forEach(entry -> paths.add(lockPath + "/" + entry.name()));
                    List<CompletableFuture<Boolean>> deletes = paths.stream().map(path -> session.delete(path, -1)).toList();
                    return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new))
                            .thenApply(all -> deletes.stream().anyMatch(CompletableFuture::join));
                })), "force release", target);
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs) {
        long sessionId = session.sessionId();
        boolean connected = session.isConnected();
        List<CompletableFuture<Renewal>> each = new ArrayList<>(holds.size());
        for (HeldLock hold : holds) {
            HeldNode node = held.get(hold.owner());
            if (node == null || node.session != sessionId) {
                each.add(CompletableFuture.completedFuture(Renewal.GONE));
            } else if (!connected) {
                // not told by the ensemble: the hold lasts until its validity ends, before the session can expire
                each.add(CompletableFuture.completedFuture(Renewal.UNKNOWN));
            } else {
                node.leaseMs = leaseMs;
                long startNanos = nanoTime.getAsLong();
                each.add(session.setData(node.path, new NodeData(hold.owner(), leaseMs, node.count, node.pass, node.holder)
                                .bytes())
                        .thenApply(stat -> {
                            if (stat == null || stat.getEphemeralOwner() != sessionId) {
                                return Renewal.GONE;
                            }
                            node.confirmedAtNanos = startNanos;
                            return Renewal.RENEWED;
                        })
                        .orTimeout(commandTimeoutMs, TimeUnit.MILLISECONDS)
                        .exceptionally(error -> Renewal.UNKNOWN));
            }
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApplyAsync(all -> each.stream().map(CompletableFuture::join).toArray(Renewal[]::new), replies);
    }

    // ---- inspection

    /** One live hold as its node says. */
    private record NodeHold(String path, Entry entry, NodeData data, Stat stat) {

        long token() {
            return ZkNodes.token(stat.getCzxid(), data.pass());
        }
    }

    /**
     * The lock's holds: its nodes with a hold count, in queue order. After a sync: the server this
     * client talks to may not yet have applied a grant the ensemble committed for a client of another
     * server, and {@code info()} right after another service's acquire must show it, as on the other
     * stores.
     */
    private CompletableFuture<List<NodeHold>> holdsOf(String lockPath) {
        return session.childrenAfterSync(lockPath).thenCompose(children -> holdsAmong(lockPath, children));
    }

    /** The holds among the lock's {@code children} as read: each node's data, those with a hold count. */
    private CompletableFuture<List<NodeHold>> holdsAmong(String lockPath, List<String> children) {
        List<CompletableFuture<NodeHold>> reads = ZkNodes.entries(children).stream().map(entry -> {
            String path = lockPath + "/" + entry.name();
            return session.getData(path).thenApply(found -> found == null ? null
                    : new NodeHold(path, entry, NodeData.of(found.bytes()), found.stat()));
        }).toList();
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(all -> reads.stream()
                .map(CompletableFuture::join)
                .filter(hold -> hold != null && hold.data().count() > 0)
                .toList());
    }

    @Override
    public CompletableFuture<LockHolds> holds(LockTarget target) {
        return out(holdsOf(ZkNodes.lockPath(target.key())).thenApply(holds -> {
            long nowMs = ensembleNowMs();
            int permits = holds.stream().filter(hold -> hold.entry().mode() == 'p').mapToInt(hold -> hold.entry().permits())
                    .findFirst().orElse(0);
            return new LockHolds(permits, holds.stream().map(hold -> new LockHolds.HoldState(hold.data().owner(),
                    hold.data().count(), hold.token(), hold.data().holder(), leftMs(hold, nowMs),
                    hold.entry().shared())).toList());
        }), "inspect", target);
    }

    private static long leftMs(NodeHold hold, long nowMs) {
        return Math.max(0, hold.stat().getMtime() + hold.data().leaseMs() - nowMs);
    }

    /**
     * The lock as the kind sees it: the write lock its writer; the read lock and the semaphore their
     * shared holds summed up; the reentrant and fair lock whoever holds it.
     */
    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        return out(holdsOf(ZkNodes.lockPath(target.key())).thenApply(holds -> {
            long nowMs = ensembleNowMs();
            List<NodeHold> exclusive = holds.stream().filter(hold -> hold.entry().exclusive()).toList();
            List<NodeHold> shared = holds.stream().filter(hold -> hold.entry().shared()).toList();
            if (!"r".equals(kind.mode()) && !exclusive.isEmpty()) {
                NodeHold hold = exclusive.get(0);
                return new LockState(hold.data().owner(), hold.data().count(), hold.token(), hold.data().holder(),
                        leftMs(hold, nowMs), Math.max(0, nowMs - hold.stat().getCtime()));
            }
            if ("w".equals(kind.mode()) || shared.isEmpty()) {
                return LockState.FREE;
            }
            NodeHold first = shared.stream().min(java.util.Comparator.comparing(hold -> hold.data().owner())).orElseThrow();
            return new LockState(first.data().owner(), shared.stream().mapToInt(hold -> hold.data().count()).sum(),
                    shared.stream().mapToLong(NodeHold::token).max().orElse(0), first.data().holder(),
                    shared.stream().mapToLong(hold -> leftMs(hold, nowMs)).max().orElse(0),
                    shared.stream().mapToLong(hold -> nowMs - hold.stat().getCtime()).max().orElse(0));
        }), "inspect", target);
    }

    @Override
    public CompletableFuture<List<String>> lockNames(String namePattern) {
        java.util.regex.Pattern glob = dev.dlock.internal.memory.MemoryStore.glob(namePattern);
        String start = keyPrefix + "{";
        return out(session.children(ZkNodes.LOCKS).thenCompose(locks -> {
            List<String> names = new ArrayList<>();
            List<CompletableFuture<Boolean>> used = new ArrayList<>();
            for (String lock : locks) {
                String key = ZkNodes.keyOf(lock);
                if (key.startsWith(start) && key.endsWith("}")) {
                    String name = key.substring(start.length(), key.length() - 1);
                    if (glob.matcher(name).matches()) {
                        names.add(name);
                        used.add(session.children(ZkNodes.LOCKS + "/" + lock).thenApply(children -> !children.isEmpty()));
                    }
                }
            }
            return CompletableFuture.allOf(used.toArray(CompletableFuture[]::new)).thenApply(all -> {
                List<String> found = new ArrayList<>();
                for (int i = 0; i < names.size(); i++) {
                    if (used.get(i).join()) {
                        found.add(names.get(i));
                    }
                }
                found.sort(null);
                return found;
            });
        }), "list", null);
    }

    /** Clients with a node queued behind the holders, each counted once. */
    @Override
    public CompletableFuture<Long> waitingCount(LockTarget target) {
        return out(session.children(ZkNodes.lockPath(target.key())).thenApply(children -> {
            List<Entry> entries = ZkNodes.entries(children);
            return entries.stream().filter(entry -> !(ZkNodes.verdict(entries, entry, null) instanceof ZkNodes.Granted))
                    .map(Entry::session).distinct().count();
        }), "count the waiters", target);
    }

    @Override
    public CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry) {
        return records.write(entry).thenApplyAsync(done -> done, replies);
    }

    @Override
    public CompletableFuture<Void> dropClientRecord(String clientId) {
        return records.drop(clientId).thenApplyAsync(done -> done, replies);
    }

    @Override
    public CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId) {
        return records.read(clientId, threadId).thenApplyAsync(found -> found, replies);
    }

    /**
     * Trusted for the lease or the session timeout, whichever is shorter, less a hundredth for the
     * clocks' rates: the ensemble heard from this client at {@code startNanos} at the earliest, so
     * it cannot expire the session before then plus the session timeout.
     */
    @Override
    public long validUntilNanos(long startNanos, long leaseMs) {
        long boundMs = Math.min(leaseMs, session.negotiatedTimeoutMs());
        return startNanos + TimeUnit.MILLISECONDS.toNanos(boundMs - boundMs / 100 - 2);
    }

    /** Whether a failed call (or the failure {@link #out} made of it) may have been applied. */
    private static boolean outcomeUnknown(Throwable error) {
        Throwable cause = Failures.unwrap(error);
        if (cause instanceof LockBackendException backend && backend.getCause() != null) {
            cause = backend.getCause();
        }
        return Failures.outcomeUnknown(cause);
    }

    // ---- the ensemble's clock

    private void observeClock(Stat stat) {
        ensembleMs = stat.getMtime();
        ensembleAtNanos = nanoTime.getAsLong();
    }

    /** The ensemble's clock as estimated from the last write seen: for retry delays and inspection, never to delete. */
    private long ensembleNowMs() {
        return ensembleMs + TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - ensembleAtNanos);
    }

    /** The ensemble's clock now: the mtime of a fresh write. */
    CompletableFuture<Long> freshEnsembleNowMs() {
        return session.setData(ZkNodes.CLOCK, new byte[0]).thenApply(stat -> {
            if (stat == null) {
                throw new IllegalStateException(ZkNodes.CLOCK + " is missing on ZooKeeper at " + session.address());
            }
            observeClock(stat);
            return stat.getMtime();
        });
    }

    /**
     * The call's reply, bounded by the command timeout; a failure as a {@link LockBackendException}
     * naming the lock. A reply is handed on where it arrived, ZooKeeper's event thread mostly, as
     * Lettuce hands a Redis reply on its I/O thread: the engine's stages after it only send requests
     * and file results, never wait, and a caller's own code runs on the client's callback executor.
     * Handing each reply to another thread first cost a thread switch per request, which a
     * synchronous caller of ZooKeeper does not pay. A failure is handed to a thread of dlock's own:
     * a timeout completes on the JDK's shared timer thread, which must not run the caller's retry.
     */
    private <T> CompletableFuture<T> out(CompletableFuture<T> call, String what, LockTarget target) {
        return out(call, what, target, commandTimeoutMs);
    }

    /**
     * As {@link #out}, for a release, which is sent again after each lost connection until it is
     * confirmed: bounded by the session timeout on top of the command timeout. Within the session
     * the client reconnects (a leader election, a server's restart) and the release is confirmed;
     * past it the session is gone on the ensemble, and with it the node.
     */
    private <T> CompletableFuture<T> outWithinSession(CompletableFuture<T> call, String what, LockTarget target) {
        return out(call, what, target, commandTimeoutMs + session.negotiatedTimeoutMs());
    }

    private <T> CompletableFuture<T> out(CompletableFuture<T> call, String what, LockTarget target, long timeoutMs) {
        CompletableFuture<T> out = new CompletableFuture<>();
        call.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((value, error) -> {
            if (error == null) {
                out.complete(value);
            } else {
                Runnable fail = () -> out.completeExceptionally(failure(error, what, target, timeoutMs));
                try {
                    replies.execute(fail);
                } catch (RejectedExecutionException closed) {
                    fail.run();
                }
            }
        });
        return out;
    }

    private LockBackendException failure(Throwable error, String what, LockTarget target, long timeoutMs) {
        Throwable cause = Failures.unwrap(error);
        NodeFailure failure = cause instanceof NodeFailure node ? node
                : cause instanceof TimeoutException ? new NodeFailure(dev.dlock.NodeError.Cause.TIMEOUT, session.address(),
                        "no reply within " + timeoutMs + " ms" + (session.isConnected() ? ""
                        : " (not connected to the ensemble)"), cause)
                : new NodeFailure(dev.dlock.NodeError.Cause.OTHER, session.address(), Failures.rootMessage(cause), cause);
        String lock = target == null ? "" : " lock '" + target.name() + "'";
        return new LockBackendException("ZooKeeper at " + session.address() + " failed to " + what + lock + ": "
                + failure.getMessage() + (failure.kind().outcomeUnknown() ? " (outcome unknown)" : ""), failure,
                target == null ? null : target.name(), List.of(failure.toNodeError()));
    }

    @Override
    public void close() {
        session.close();
        replies.shutdown();
    }
}
