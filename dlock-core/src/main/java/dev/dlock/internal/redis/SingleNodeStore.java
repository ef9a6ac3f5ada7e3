package dev.dlock.internal.redis;

import dev.dlock.LockBackendException;
import dev.dlock.LockHolder;
import dev.dlock.NodeError;
import dev.dlock.internal.settings.ReplicaAcks;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.CleanupFailures;
import dev.dlock.internal.store.ClientRecordEntry;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.IncompleteScan;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.NodeFailure;
import dev.dlock.internal.store.Renewal;
import dev.dlock.internal.store.StoreHandoff;
import dev.dlock.internal.store.WakeUpSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks on one Redis (standalone, or the master Sentinel names): each operation is one script
 * call, plus a WAIT after each grant and renewal when the settings ask for replicas'
 * acknowledgements ({@link ReplicaAcks}; see {@code LockClient.Builder.replicaAcks}). Every script
 * that grants a token raises the lock's token floor ({@link TokenFloors}) in the same call.
 */
public final class SingleNodeStore implements LockStore {

    private static final Logger LOG = LoggerFactory.getLogger(SingleNodeStore.class);

    private final RedisNode node;
    private final long commandTimeoutMs;
    private final Ticker ticker;
    private final TokenFloors floors;
    private final ReplicaAcks replicaAcks;
    private final RedisRecords records;
    private final RedisWakeUps wakeUps;
    private final Runnable afterClose;
    private final CleanupFailures cleanupFailures;
    private final ScriptHandoff handoff;

    /**
     * @param ticker        the clock of grant validities
     * @param perSlotFloors Redis Cluster: one token floor per slot (see {@link TokenFloors})
     */
    public SingleNodeStore(RedisNode node, Settings settings, Ticker ticker, boolean perSlotFloors) {
        this(node, settings, ticker, perSlotFloors, () -> { });
    }

    /** @param afterClose run after the node is closed (the connections' resources go) */
    public SingleNodeStore(RedisNode node, Settings settings, Ticker ticker, boolean perSlotFloors, Runnable afterClose) {
        this.node = node;
        this.afterClose = afterClose;
        this.cleanupFailures = new CleanupFailures(LOG, node.address());
        this.records = new RedisRecords(settings.keyPrefix());
        this.wakeUps = new RedisWakeUps(List.of(node), settings.commandTimeout().toMillis());
        this.commandTimeoutMs = settings.commandTimeout().toMillis();
        this.ticker = ticker;
        this.floors = new TokenFloors(settings.keyPrefix(), settings.tokenFloorTtl(), perSlotFloors);
        this.handoff = new ScriptHandoff(node, floors, ticker, commandTimeoutMs);
        this.replicaAcks = settings.replicaAcks();
    }

    @Override
    public WakeUpSource wakeUps() {
        return wakeUps;
    }

    @Override
    public String productName() {
        return "Redis";
    }

    @Override
    public String describe() {
        return node.address();
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request) {
        long startNanos = ticker.nanoTime();
        CompletableFuture<AcquireReply> reply = KindScripts.acquire(kind, target, request, floors.of(target)).on(node)
                .handle((fields, error) -> {
                    if (error != null) {
                        throw failedAcquire(target, kind, request, error);
                    }
                    cleanupFailures.answered();
                    return Replies.acquire((List<?>) fields, validUntilNanos(startNanos, request.leaseMs()));
                });
        if (!replicaAcks.enabled()) {
            return reply;
        }
        return reply.thenCompose(answer -> answer instanceof AcquireReply.Granted
                ? acknowledged(target, kind, request, answer) : CompletableFuture.completedFuture(answer));
    }

    /**
     * The grant once enough replicas acknowledged it; else a fresh hold is given back (abandon,
     * queued behind the WAIT on the same connection) and the attempt fails, and a re-entry fails
     * with the outer hold kept (its count in Redis may stay one higher, as after a lost reply).
     */
    private CompletableFuture<AcquireReply> acknowledged(LockTarget target, LockKind kind, AcquireRequest request,
                                                         AcquireReply grant) {
        return node.waitForReplicas(target.key(), replicaAcks.replicas(), replicaAcks.timeout()).handle((acked, error) -> {
            if (error == null && acked >= replicaAcks.replicas()) {
                return grant;
            }
            String missing = error != null ? "the replicas' acknowledgement could not be awaited ("
                    + RedisFailures.asNodeFailure(node, error, commandTimeoutMs).getMessage() + ")" : unacknowledged(acked);
            String lock = kind.label() + " '" + target.name() + "'";
            if (request.reentry()) {
                throw new LockBackendException("re-entry of " + lock + " on " + node.address() + " not counted: " + missing
                        + "; the outer hold is kept", Failures.unwrap(error), target.name(), List.of());
            }
            abandon(target, kind, request.owner());
            throw new LockBackendException(lock + " acquired on " + node.address() + " but " + missing + "; released",
                    error == null ? null : Failures.unwrap(error), target.name(), List.of());
        });
    }

    private String unacknowledged(long acked) {
        return "only " + acked + " of " + replicaAcks.replicas() + " replicas acknowledged within "
                + replicaAcks.timeoutMs() + " ms";
    }

    private LockBackendException failedAcquire(LockTarget target, LockKind kind, AcquireRequest request, Throwable error) {
        LockBackendException failure = RedisFailures.commandFailed(request.reentry() ? "re-entry" : "acquire", target, node,
                commandTimeoutMs, error);
        if (request.reentry() || !Failures.outcomeUnknown(error)) {
            return failure;
        }
        abandon(target, kind, request.owner());
        return Failures.extend(failure, "; a best-effort release was sent");
    }

    @Override
    public CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token) {
        return KindScripts.release(kind, target, owner, token, floors.of(target), true).on(node).handle((reply, error) -> {
            if (error != null) {
                throw RedisFailures.commandFailed("release", target, node, commandTimeoutMs, error);
            }
            return (Long) reply;
        });
    }

    @Override
    public Optional<StoreHandoff> handoff() {
        // a handoff grants inside a release; with replicas' acknowledgements asked for, every grant
        // goes through acquire() and its WAIT instead
        return replicaAcks.enabled() ? Optional.empty() : Optional.of(handoff);
    }

    @Override
    public CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner) {
        return bestEffort(KindScripts.abandon(kind, target, owner, floors.of(target), null), target,
                // also after an acquire whose outcome is unknown: it may never have held
                "clean up what this client may hold of");
    }

    @Override
    public CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId) {
        ScriptCall leave = KindScripts.leave(kind, target, waiterId, floors.of(target));
        return leave == null ? CompletableFuture.completedFuture(null) : bestEffort(leave, target, "leave the queue of");
    }

    private CompletableFuture<Void> bestEffort(ScriptCall call, LockTarget target, String what) {
        return call.on(node).handle((reply, error) -> {
            if (error != null) {
                cleanupFailures.failed(what, target.name(), Failures.unwrap(error));
            } else {
                cleanupFailures.answered();
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockTarget target) {
        return Scripts.forceRelease(target, floors.of(target)).on(node).handle((reply, error) -> {
            if (error != null) {
                throw RedisFailures.commandFailed("force release", target, node, commandTimeoutMs, error);
            }
            return (Long) reply == 1L;
        });
    }

    /** One script call per hash slot on a Cluster (a script's keys must share one), one call elsewhere. */
    @Override
    public CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs) {
        Renewal[] outcome = new Renewal[holds.size()];
        Map<Integer, List<Integer>> bySlot = new HashMap<>();
        for (int i = 0; i < holds.size(); i++) {
            bySlot.computeIfAbsent(node.slot(holds.get(i).target().key()), slot -> new ArrayList<>()).add(i);
        }
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (List<Integer> indexes : bySlot.values()) {
            List<HeldLock> batch = indexes.stream().map(holds::get).toList();
            calls.add(acknowledgedRenewals(batch, Replies.renewOn(node, batch, leaseMs)).handle((renewed, error) -> {
                if (error != null) {
                    failures.add(error);
                }
                for (int j = 0; j < indexes.size(); j++) {
                    outcome[indexes.get(j)] = error != null ? Renewal.UNKNOWN
                            : renewed[j] == 1 ? Renewal.RENEWED : Renewal.GONE;
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(done -> {
            if (failures.size() == calls.size()) {
                // nothing renewed: the holders are told why (a Cluster's slots that answered count as renewed)
                throw new java.util.concurrent.CompletionException(RedisFailures.asNodeFailure(node, failures.get(0),
                        commandTimeoutMs));
            }
            return outcome;
        });
    }

    /**
     * The renewals once enough replicas acknowledged them (one WAIT per batch); when too few did,
     * none of the batch counts as renewed (outcome unknown: validity not moved forward).
     */
    private CompletableFuture<long[]> acknowledgedRenewals(List<HeldLock> holds, CompletableFuture<long[]> renewed) {
        if (!replicaAcks.enabled()) {
            return renewed;
        }
        return renewed.thenCompose(outcomes -> {
            if (java.util.Arrays.stream(outcomes).noneMatch(outcome -> outcome == 1)) {
                return CompletableFuture.completedFuture(outcomes);
            }
            return node.waitForReplicas(holds.get(0).target().key(), replicaAcks.replicas(), replicaAcks.timeout())
                    .thenApply(acked -> {
                        if (acked >= replicaAcks.replicas()) {
                            return outcomes;
                        }
                        String what = "renewal of " + holds.size() + " hold(s) on " + node.address() + " not counted: "
                                + unacknowledged(acked);
                        LOG.warn("{}; their validity is not extended", what);
                        throw new LockBackendException(what);
                    });
        });
    }

    @Override
    public CompletableFuture<LockState> inspect(LockTarget target, LockKind kind) {
        return KindScripts.inspect(kind, target).on(node).handle((reply, error) -> {
            if (error != null) {
                throw RedisFailures.commandFailed("inspect", target, node, commandTimeoutMs, error);
            }
            return Replies.state((List<?>) reply);
        });
    }

    @Override
    public CompletableFuture<LockHolds> holds(LockTarget target) {
        return Scripts.inspectHolds(target).on(node).handle((reply, error) -> {
            if (error != null) {
                throw RedisFailures.commandFailed("inspect", target, node, commandTimeoutMs, error);
            }
            return Replies.holds((List<?>) reply);
        });
    }

    @Override
    public CompletableFuture<Long> waitingCount(LockTarget target) {
        return node.subscriberCount(target.channel());
    }

    @Override
    public CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry) {
        return records.write(List.of(node), entry);
    }

    @Override
    public CompletableFuture<Void> dropClientRecord(String clientId) {
        return records.drop(List.of(node), clientId);
    }

    @Override
    public CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId) {
        return records.read(List.of(node), clientId, threadId);
    }

    @Override
    public CompletableFuture<List<String>> lockNames(String namePattern) {
        return node.scan(records.keyPattern(namePattern)).handle((keys, error) -> {
            if (Failures.unwrap(error) instanceof IncompleteScan incomplete) {
                throw incomplete.found(records.names(incomplete.found()));
            }
            if (error != null) {
                NodeFailure failure = RedisFailures.asNodeFailure(node, error, commandTimeoutMs);
                NodeError described = failure.toNodeError();
                throw new LockBackendException("list failed: " + described, failure, null, List.of(described));
            }
            return records.names(keys);
        });
    }

    @Override
    public void close() {
        node.close();
        afterClose.run();
    }
}
