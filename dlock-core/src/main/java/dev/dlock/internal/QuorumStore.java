package dev.dlock.internal;

import dev.dlock.LockBackendException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Redlock: a lock over N independent Redis masters, held when a majority (N/2+1) granted it
 * within the lease. Every operation goes to all nodes in parallel, each call bounded by the
 * per-node timeout, and is decided as soon as the replies allow. The validity of a grant is
 * lease − time spent acquiring − drift (lease × 1% + 2 ms), measured from the attempt's start.
 *
 * <p>Fencing tokens: each node proposes max(its hash's token + 1, its token floor + 1, its TIME in
 * µs); the hold's token is the maximum over the granting nodes. On release every node raises its
 * token floor (one key per node, not per lock, expiring after {@link #floorTtlMs}) to that token,
 * so a later majority, which shares a node with this one, proposes above it. docs/design.md says
 * what this relies on.
 */
final class QuorumStore implements LockStore {

    /** How long a node remembers the highest token released on it (one key per node). */
    static final long DEFAULT_FLOOR_TTL_MS = TimeUnit.MINUTES.toMillis(10);
    static final long MIN_NODE_TIMEOUT_MS = 50;

    private final List<RedisNode> nodes;
    private final int quorum;
    private final long commandTimeoutMs;
    private final long fixedNodeTimeoutMs;
    private final String floorKey;
    private final String floorTtl;
    private final LockKind.Floor floor;

    /** @param nodeTimeoutMs per-node timeout; 0 to derive it from each lease (lease / 10) */
    QuorumStore(List<RedisNode> nodes, String keyPrefix, long commandTimeoutMs, long nodeTimeoutMs) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.commandTimeoutMs = commandTimeoutMs;
        this.fixedNodeTimeoutMs = nodeTimeoutMs;
        this.floorKey = keyPrefix + "token-floor";
        this.floorTtl = Long.toString(DEFAULT_FLOOR_TTL_MS);
        this.floor = new LockKind.Floor(floorKey, floorTtl);
    }

    /** Per-node timeout for a lease: a tenth of it (so a slow node costs at most 10% of the validity). */
    long nodeTimeoutMs(long leaseMs) {
        if (fixedNodeTimeoutMs > 0) {
            return fixedNodeTimeoutMs;
        }
        return Math.min(commandTimeoutMs, Math.max(MIN_NODE_TIMEOUT_MS, leaseMs / 10));
    }

    /** Timeout of calls that are not tied to a lease (release, inspect, ...). */
    private long operationTimeoutMs() {
        return fixedNodeTimeoutMs > 0 ? fixedNodeTimeoutMs : commandTimeoutMs;
    }

    @Override
    public List<RedisNode> nodes() {
        return nodes;
    }

    @Override
    public String describe() {
        List<String> addresses = new ArrayList<>();
        nodes.forEach(node -> addresses.add(node.address()));
        return "Redlock over " + addresses;
    }

    @Override
    public long validUntilNanos(long startNanos, long leaseMs) {
        long driftMs = leaseMs / 100 + 2;
        return startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs - driftMs);
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = System.nanoTime();
        long timeoutMs = nodeTimeoutMs(request.leaseMs());
        ScriptCall call = kind.acquire(target, request, floor);
        return Fanout.<List<?>, AcquireReply>call(nodes, timeoutMs,
                node -> call.on(node).thenApply(reply -> (List<?>) reply),
                replies -> decideAcquire(replies, target, kind, request, startNanos, timeoutMs));
    }

    private Optional<AcquireReply> decideAcquire(Fanout<List<?>> replies, LockTarget target, LockKind kind,
                                                 AcquireRequest request, long startNanos, long timeoutMs) {
        long leaseMs = request.leaseMs();
        boolean reentry = request.reentry();
        int granted = 0;
        int refused = 0;
        long token = 0;
        int holdCount = 0;
        long retryAfterMs = Long.MAX_VALUE;
        List<Long> tickets = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            List<?> reply = replies.reply(i);
            if (reply == null) {
                continue;
            }
            AcquireReply decoded = Replies.acquire(reply, 0);
            if (decoded instanceof AcquireReply.Granted grant) {
                granted++;
                token = Math.max(token, grant.token());
                holdCount = Math.max(holdCount, grant.holdCount());
            } else if (decoded instanceof AcquireReply.Busy busy) {
                refused++;
                retryAfterMs = Math.min(retryAfterMs, Math.max(0, busy.retryAfterMs()));
                if (busy.ticket() > 0) {
                    tickets.add(busy.ticket());
                }
            } else {
                refused++;
            }
        }
        if (granted >= quorum) {
            long validUntil = validUntilNanos(startNanos, leaseMs);
            if (validUntil - System.nanoTime() > 0) {
                return Optional.of(new AcquireReply.Granted(token, holdCount, validUntil));
            }
            // granted too slowly to be of use: give it back and try again
            abandonUnsettled(replies, target, kind, request, true);
            return Optional.of(new AcquireReply.Busy(0, true, agreedTicket(request, tickets)));
        }
        int errors = replies.errorCount();
        boolean quorumStillPossible = replies.size() - refused - errors >= quorum;
        if (quorumStillPossible) {
            return Optional.empty();
        }
        if (!reentry) {
            abandonUnsettled(replies, target, kind, request, false);
        }
        if (replies.size() - errors < quorum) {
            throw new LockBackendException((reentry ? "re-entry" : "acquire") + " failed for lock '" + target.name()
                    + "': no quorum reachable (need " + quorum + " of " + replies.size() + "): "
                    + String.join("; ", replies.failures(timeoutMs))
                    + (reentry ? "" : "; a best-effort release was sent to every node"));
        }
        if (reentry) {
            // with the re-entry flag a node refuses only when the caller no longer owns the lock there
            return Optional.of(new AcquireReply.LostOnReentry());
        }
        return Optional.of(new AcquireReply.Busy(retryAfterMs == Long.MAX_VALUE ? 0 : retryAfterMs, granted > 0,
                agreedTicket(request, tickets)));
    }

    /**
     * A fair waiter's place, the same on every node: each node that queued it first proposed its
     * own server time; the median of the proposals seen is kept and sent on every later attempt,
     * so that all nodes order the waiters alike (different orders per node would let every waiter
     * win a minority and no one a quorum, again and again).
     */
    private static long agreedTicket(AcquireRequest request, List<Long> tickets) {
        if (request.ticket() > 0 || tickets.isEmpty()) {
            return request.ticket();
        }
        tickets.sort(null);
        return tickets.get(tickets.size() / 2);
    }

    /**
     * Releases a failed attempt wherever it may have been granted: on nodes that granted, failed or
     * have not answered yet (their grant may still come; the release queues behind it). A fair
     * waiter that goes on waiting keeps its place there.
     */
    private void abandonUnsettled(Fanout<List<?>> replies, LockTarget target, LockKind kind, AcquireRequest request,
                                  boolean everywhere) {
        ScriptCall abandon = kind.abandon(target, request.owner(), floor, request.mayWait() ? request : null);
        for (int i = 0; i < replies.size(); i++) {
            List<?> reply = replies.reply(i);
            boolean refused = reply != null && !(Replies.acquire(reply, 0) instanceof AcquireReply.Granted);
            if (everywhere || !refused) {
                abandon.on(replies.node(i)).exceptionally(error -> null);
            }
        }
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        long timeoutMs = operationTimeoutMs();
        ScriptCall call = kind.release(target, owner, token, floor);
        return Fanout.<Long, Long>call(nodes, timeoutMs,
                node -> call.on(node).thenApply(reply -> (Long) reply),
                replies -> {
                    int released = 0;
                    int notOwner = 0;
                    long holdsLeft = 0;
                    for (int i = 0; i < replies.size(); i++) {
                        Long reply = replies.reply(i);
                        if (reply == null) {
                            continue;
                        }
                        if (reply >= 0) {
                            released++;
                            holdsLeft = Math.max(holdsLeft, reply);
                        } else {
                            notOwner++;
                        }
                    }
                    if (released >= quorum) {
                        return Optional.of(holdsLeft);
                    }
                    if (notOwner > replies.size() - quorum) {
                        return Optional.of(-1L);
                    }
                    if (!replies.allAnswered()) {
                        return Optional.empty();
                    }
                    throw new LockBackendException("release outcome unknown for lock '" + target.name() + "': "
                            + released + " of " + replies.size() + " nodes released it, " + quorum + " needed; "
                            + String.join("; ", replies.failures(timeoutMs)));
                });
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return everywhere(kind.abandon(target, owner, floor, null));
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        ScriptCall leave = kind.leave(target, waiterId);
        return leave == null ? CompletableFuture.completedFuture(null) : everywhere(leave);
    }

    /** Best effort on every node, each bounded by the operation timeout; never fails. */
    private CompletableFuture<Void> everywhere(ScriptCall call) {
        List<CompletableFuture<Object>> all = new ArrayList<>();
        long timeoutMs = operationTimeoutMs();
        nodes.forEach(node -> all.add(call.on(node).orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .exceptionally(error -> null)));
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        String[] keys = {target.key(), floorKey};
        long timeoutMs = operationTimeoutMs();
        return Fanout.<Long, Boolean>call(nodes, timeoutMs,
                node -> node.eval(LuaScript.FORCE_RELEASE, keys, target.channel(), floorTtl).thenApply(reply -> (Long) reply),
                replies -> {
                    if (!replies.allAnswered()) {
                        return Optional.empty();
                    }
                    if (replies.errorCount() == replies.size()) {
                        throw new LockBackendException("force release failed for lock '" + target.name()
                                + "': no node answered: " + String.join("; ", replies.failures(timeoutMs)));
                    }
                    // held means held by a quorum: a minority of copies (a grant that reached a node
                    // after the quorum had decided, a node that lost its data) is freed too, but no
                    // one held the lock through it
                    int heldOn = 0;
                    for (int i = 0; i < replies.size(); i++) {
                        heldOn += Long.valueOf(1).equals(replies.reply(i)) ? 1 : 0;
                    }
                    return Optional.of(heldOn >= quorum);
                });
    }

    @Override
    public CompletableFuture<Renewal[]> renew(List<Hold> holds, long leaseMs) {
        return Fanout.<long[], Renewal[]>call(nodes, nodeTimeoutMs(leaseMs),
                node -> Replies.renewOn(node, holds, leaseMs),
                replies -> {
                    if (!replies.allAnswered()) {
                        return Optional.empty();
                    }
                    Renewal[] outcome = new Renewal[holds.size()];
                    for (int h = 0; h < outcome.length; h++) {
                        int renewed = 0;
                        int gone = 0;
                        for (int i = 0; i < replies.size(); i++) {
                            long[] reply = replies.reply(i);
                            if (reply != null && reply[h] == 1) {
                                renewed++;
                            } else if (reply != null) {
                                gone++;
                            }
                        }
                        outcome[h] = renewed >= quorum ? Renewal.RENEWED
                                : gone > replies.size() - quorum ? Renewal.GONE : Renewal.UNKNOWN;
                        if (outcome[h] == Renewal.RENEWED && renewed < replies.size()) {
                            reassertWhereMissing(replies, h, holds.get(h), leaseMs);
                        }
                    }
                    return Optional.of(outcome);
                });
    }

    /**
     * The hold is renewed on a quorum, so the caller holds the lock: put it back on nodes that
     * came back without it, before anyone else can win them.
     */
    private void reassertWhereMissing(Fanout<long[]> replies, int holdIndex, Hold hold, long leaseMs) {
        for (int i = 0; i < replies.size(); i++) {
            long[] reply = replies.reply(i);
            if (reply != null && reply[holdIndex] == 0) {
                hold.kind.reassert(hold, leaseMs).on(replies.node(i)).exceptionally(error -> null);
            }
        }
    }

    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        long timeoutMs = operationTimeoutMs();
        ScriptCall call = kind.inspect(target);
        return Fanout.<LockState, LockState>call(nodes, timeoutMs,
                node -> call.on(node).thenApply(reply -> Replies.state((List<?>) reply)),
                replies -> {
                    if (!replies.allAnswered()) {
                        return Optional.empty();
                    }
                    if (replies.size() - replies.errorCount() < quorum) {
                        throw new LockBackendException("inspect failed for lock '" + target.name()
                                + "': no quorum reachable: " + String.join("; ", replies.failures(timeoutMs)));
                    }
                    Map<String, List<LockState>> byOwner = new HashMap<>();
                    for (int i = 0; i < replies.size(); i++) {
                        LockState state = replies.reply(i);
                        if (state != null && state.isHeld()) {
                            byOwner.computeIfAbsent(state.owner(), owner -> new ArrayList<>()).add(state);
                        }
                    }
                    return Optional.of(byOwner.values().stream()
                            .filter(states -> states.size() >= quorum)
                            .findFirst()
                            .map(QuorumStore::combine)
                            .orElse(LockState.FREE));
                });
    }

    /** The quorum's view: the largest token, the shortest lease left. */
    private static LockState combine(List<LockState> states) {
        LockState first = states.get(0);
        long token = states.stream().mapToLong(LockState::token).max().orElse(0);
        long pttl = states.stream().mapToLong(LockState::pttlMs).min().orElse(0);
        int holdCount = states.stream().mapToInt(LockState::holdCount).max().orElse(0);
        return new LockState(first.owner(), holdCount, token, first.holder(), pttl);
    }

    @Override
    public CompletableFuture<Long> waitingClients(LockTarget target) {
        return Fanout.<Long, Long>call(nodes, operationTimeoutMs(),
                node -> node.subscriberCount(target.channel()),
                replies -> {
                    if (!replies.allAnswered()) {
                        return Optional.empty();
                    }
                    long most = 0;
                    for (int i = 0; i < replies.size(); i++) {
                        Long count = replies.reply(i);
                        most = Math.max(most, count == null ? 0 : count);
                    }
                    return Optional.of(most);
                });
    }

    @Override
    public CompletableFuture<List<String>> scan(String keyPattern) {
        long timeoutMs = operationTimeoutMs();
        return Fanout.<List<String>, List<String>>call(nodes, timeoutMs, node -> node.scan(keyPattern), replies -> {
            if (!replies.allAnswered()) {
                return Optional.empty();
            }
            if (replies.errorCount() == replies.size()) {
                throw new LockBackendException("list failed: no node answered: "
                        + String.join("; ", replies.failures(timeoutMs)));
            }
            TreeSet<String> keys = new TreeSet<>();
            for (int i = 0; i < replies.size(); i++) {
                List<String> found = replies.reply(i);
                if (found != null) {
                    keys.addAll(found);
                }
            }
            return Optional.of(List.copyOf(keys));
        });
    }

    @Override
    public void close() {
        nodes.forEach(RedisNode::close);
    }
}
