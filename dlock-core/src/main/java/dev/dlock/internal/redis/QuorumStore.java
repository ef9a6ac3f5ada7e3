package dev.dlock.internal.redis;

import dev.dlock.LockHolder;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.ClientRecordEntry;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.IncompleteScan;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.WakeUpSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Redlock: a lock over N independent Redis masters, held when a majority (N/2+1) granted it
 * within the lease. Every operation goes to all nodes in parallel and is decided by
 * {@link Quorum}'s one rule. The validity of a grant is lease − time spent acquiring − drift
 * (lease × 1% + 2 ms), measured from the attempt's start.
 *
 * <p>Fencing tokens: each node proposes max(its hash's token + 1, its token floor + 1, its TIME in
 * µs); the hold's token is the maximum over the granting nodes. On release every node raises its
 * token floor (one key per node, not per lock, expiring after the settings' token floor TTL) to
 * that token, so a later majority, which shares a node with this one, proposes above it.
 * docs/design.md says what this relies on. The floor's lifetime and the least per-node timeout
 * come from the client's {@link Settings}.
 */
public final class QuorumStore implements LockStore {

    private static final Function<Long, Quorum.Vote> RELEASED = reply -> reply >= 0 ? Quorum.Vote.YES : Quorum.Vote.NO;
    private static final Function<Long, Quorum.Vote> WAS_HELD = reply -> reply == 1 ? Quorum.Vote.YES : Quorum.Vote.NO;

    private final List<RedisNode> nodes;
    private final int quorum;
    private final Settings settings;
    private final Ticker ticker;
    private final KindScripts.Floor floor;

    private final RedisRecords records;
    private final RedisWakeUps wakeUps;
    private final Runnable afterClose;
    private final QuorumAcquire acquisitions;

    /** @param ticker the clock of grant validities */
    public QuorumStore(List<RedisNode> nodes, Settings settings, Ticker ticker) {
        this(nodes, settings, ticker, () -> { });
    }

    /** @param afterClose run after the nodes are closed (the connections' resources go) */
    public QuorumStore(List<RedisNode> nodes, Settings settings, Ticker ticker, Runnable afterClose) {
        this.nodes = List.copyOf(nodes);
        this.afterClose = afterClose;
        this.records = new RedisRecords(settings.keyPrefix());
        this.wakeUps = new RedisWakeUps(this.nodes, settings.commandTimeout().toMillis());
        this.quorum = Settings.quorumOf(nodes.size());
        this.settings = settings;
        this.ticker = ticker;
        this.floor = new KindScripts.Floor(settings.keyPrefix() + "token-floor",
                Long.toString(settings.tokenFloorTtl().toMillis()));
        this.acquisitions = new QuorumAcquire(quorum, floor, ticker, this::validUntilNanos);
    }

    /** Per-node timeout for a lease: see {@link Settings#redlockNodeTimeoutMs}. */
    public long nodeTimeoutMs(long leaseMs) {
        return settings.redlockNodeTimeoutMs(leaseMs);
    }

    /** Timeout of calls that are not tied to a lease (release, inspect, ...). */
    private long operationTimeoutMs() {
        return settings.redlockOperationTimeoutMs();
    }

    @Override
    public WakeUpSource wakeUps() {
        return wakeUps;
    }

    @Override
    public boolean isQuorum() {
        return true;
    }

    @Override
    public String productName() {
        return "Redis";
    }

    @Override
    public String describe() {
        return "Redlock over " + nodes.stream().map(RedisNode::address).toList();
    }

    @Override
    public long validUntilNanos(long startNanos, long leaseMs) {
        return startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs - Settings.driftMs(leaseMs));
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = ticker.nanoTime();
        ScriptCall call = KindScripts.acquire(kind, target, request, floor);
        return Quorum.<List<?>>call(nodes, nodeTimeoutMs(request.leaseMs()), node -> call.on(node).thenApply(reply -> (List<?>) reply),
                Quorum.Settle.AT_VERDICT, QuorumAcquire.GRANTED)
                .thenApply(votes -> acquisitions.decide(votes, target, kind, request, startNanos));
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        // Redlock's waiters are never queued: see Acquisition
        ScriptCall call = KindScripts.release(kind, target, owner, token, floor, false);
        return Quorum.<Long>call(nodes, operationTimeoutMs(), node -> call.on(node).thenApply(reply -> (Long) reply),
                Quorum.Settle.AT_WIN_OR_LOSS, RELEASED).thenApply(votes -> {
                    switch (votes.verdict(RELEASED)) {
                        case WON:
                            long holdsLeft = 0;
                            for (int i = 0; i < votes.size(); i++) {
                                Long reply = votes.reply(i);
                                holdsLeft = Math.max(holdsLeft, reply == null ? 0 : reply);
                            }
                            return holdsLeft;
                        case LOST:
                            return -1L;
                        default:
                            throw votes.failed(target.name(), "release outcome unknown for lock '" + target.name() + "': "
                                    + votes.count(RELEASED, Quorum.Vote.YES) + " of " + votes.size()
                                    + " nodes released it, " + quorum + " needed; ", "");
                    }
                });
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return everywhere(KindScripts.abandon(kind, target, owner, floor, null));
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        ScriptCall leave = KindScripts.leave(kind, target, waiterId, floor);
        return leave == null ? CompletableFuture.completedFuture(null) : everywhere(leave);
    }

    /** Best effort on every node, each bounded by the operation timeout; never fails. */
    private CompletableFuture<Void> everywhere(ScriptCall call) {
        return Quorum.<Object>call(nodes, operationTimeoutMs(), call::on, Quorum.Settle.ALL_ANSWERED, null)
                .thenApply(votes -> null);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        ScriptCall call = Scripts.forceRelease(target, floor);
        return Quorum.<Long>call(nodes, operationTimeoutMs(), node -> call.on(node).thenApply(reply -> (Long) reply),
                Quorum.Settle.ALL_ANSWERED, WAS_HELD).thenApply(votes -> {
                    if (votes.reachable() == 0) {
                        throw votes.failed(target.name(), "force release failed for lock '" + target.name()
                                + "': no node answered: ", "");
                    }
                    // held means held by a quorum: a minority of copies (a grant that reached a node
                    // after the quorum had decided, a node that lost its data) is freed too, but no
                    // one held the lock through it
                    return votes.verdict(WAS_HELD) == Quorum.Verdict.WON;
                });
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs) {
        return Quorum.<long[]>call(nodes, nodeTimeoutMs(leaseMs), node -> Replies.renewOn(node, holds, leaseMs),
                Quorum.Settle.ALL_ANSWERED, null).thenApply(votes -> {
                    Renewal[] outcome = new Renewal[holds.size()];
                    for (int h = 0; h < outcome.length; h++) {
                        int hold = h;
                        Function<long[], Quorum.Vote> renewed = reply -> reply[hold] == 1 ? Quorum.Vote.YES : Quorum.Vote.NO;
                        Quorum.Verdict verdict = votes.verdict(renewed);
                        outcome[h] = verdict == Quorum.Verdict.WON ? Renewal.RENEWED
                                : verdict == Quorum.Verdict.LOST ? Renewal.GONE : Renewal.UNKNOWN;
                        if (outcome[h] == Renewal.RENEWED && votes.count(renewed, Quorum.Vote.YES) < votes.size()) {
                            reassertWhereMissing(votes, h, holds.get(h), leaseMs);
                        }
                    }
                    return outcome;
                });
    }

    /**
     * The hold is renewed on a quorum, so the caller holds the lock: put it back on nodes that
     * came back without it, before anyone else can win them.
     */
    private void reassertWhereMissing(Quorum.Votes<long[]> votes, int holdIndex, HeldLock hold, long leaseMs) {
        for (int i = 0; i < votes.size(); i++) {
            long[] reply = votes.reply(i);
            ScriptCall reassert = KindScripts.reassert(hold, leaseMs);
            if (reply != null && reply[holdIndex] == 0 && reassert != null) {
                reassert.on(votes.node(i)).exceptionally(error -> null);
            }
        }
    }

    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        ScriptCall call = KindScripts.inspect(kind, target);
        return Quorum.<LockState>call(nodes, operationTimeoutMs(),
                node -> call.on(node).thenApply(reply -> Replies.state((List<?>) reply)),
                Quorum.Settle.ALL_ANSWERED, null).thenApply(votes -> {
                    if (votes.reachable() < quorum) {
                        throw votes.failed(target.name(), "inspect failed for lock '" + target.name()
                                + "': no quorum reachable: ", "");
                    }
                    List<LockState> states = new ArrayList<>();
                    for (int i = 0; i < votes.size(); i++) {
                        states.add(votes.reply(i));
                    }
                    return LockState.heldByQuorum(states, quorum);
                });
    }

    @Override
    public CompletableFuture<LockHolds> holds(LockTarget target) {
        ScriptCall call = Scripts.inspectHolds(target);
        return Quorum.<LockHolds>call(nodes, operationTimeoutMs(),
                node -> call.on(node).thenApply(reply -> Replies.holds((List<?>) reply)),
                Quorum.Settle.ALL_ANSWERED, null).thenApply(votes -> {
                    if (votes.reachable() < quorum) {
                        throw votes.failed(target.name(), "inspect failed for lock '" + target.name()
                                + "': no quorum reachable: ", "");
                    }
                    List<LockHolds> nodeHolds = new ArrayList<>();
                    for (int i = 0; i < votes.size(); i++) {
                        nodeHolds.add(votes.reply(i));
                    }
                    return LockHolds.heldByQuorum(nodeHolds, quorum);
                });
    }

    @Override
    public CompletableFuture<Long> waitingCount(LockTarget target) {
        return Quorum.<Long>call(nodes, operationTimeoutMs(), node -> node.subscriberCount(target.channel()),
                Quorum.Settle.ALL_ANSWERED, null).thenApply(votes -> {
                    long most = 0;
                    for (int i = 0; i < votes.size(); i++) {
                        Long count = votes.reply(i);
                        most = Math.max(most, count == null ? 0 : count);
                    }
                    return most;
                });
    }

    @Override
    public CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry) {
        return records.write(nodes, entry);
    }

    @Override
    public CompletableFuture<Void> dropClientRecord(String clientId) {
        return records.drop(nodes, clientId);
    }

    @Override
    public CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId) {
        return records.read(nodes, clientId, threadId);
    }

    @Override
    public CompletableFuture<List<String>> lockNames(String namePattern) {
        String keyPattern = records.keyPattern(namePattern);
        return Quorum.<List<String>>call(nodes, operationTimeoutMs(), node -> node.scan(keyPattern),
                Quorum.Settle.ALL_ANSWERED, null).thenApply(votes -> {
                    if (votes.reachable() == 0) {
                        throw votes.failed(null, "list failed: no node answered: ", "");
                    }
                    TreeSet<String> keys = new TreeSet<>();
                    for (int i = 0; i < votes.size(); i++) {
                        List<String> found = votes.reply(i);
                        if (found != null) {
                            keys.addAll(found);
                        }
                    }
                    List<String> names = records.names(List.copyOf(keys));
                    if (!votes.failures().isEmpty()) {
                        // a node that was not walked is named, as a Cluster's master is, never left out unsaid
                        throw new IncompleteScan(names, votes.failures(), votes.size());
                    }
                    return names;
                });
    }

    @Override
    public void close() {
        nodes.forEach(RedisNode::close);
        afterClose.run();
    }
}
