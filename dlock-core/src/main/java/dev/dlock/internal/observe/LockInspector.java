package dev.dlock.internal.observe;

import dev.dlock.HoldInfo;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import dev.dlock.LockListIncompleteException;
import dev.dlock.NodeError;
import dev.dlock.internal.hold.ClientIdentity;
import dev.dlock.internal.hold.ClientRecord;
import dev.dlock.internal.store.Failures;
import dev.dlock.internal.store.IncompleteScan;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockState;
import dev.dlock.internal.store.LockStore;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.NodeFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/** Reads locks for operators: one lock's {@link LockInfo}, or every held lock matching a name pattern. */
public final class LockInspector {

    private final LockStore store;
    private final String keyPrefix;

    public LockInspector(LockStore store, String keyPrefix) {
        this.store = store;
        this.keyPrefix = keyPrefix;
    }

    /** The lock's state as the kind sees it, with every hold in that view. */
    public CompletableFuture<LockInfo> inspect(LockTarget target, LockKind kind) {
        return inspect(target, kind, true);
    }

    /**
     * @param ownKind whether an exclusive hold is reported as {@code kind} (a lock's own view); false for a
     *                listing, which reads every lock through one view and cannot tell exclusive kinds apart
     */
    private CompletableFuture<LockInfo> inspect(LockTarget target, LockKind kind, boolean ownKind) {
        CompletableFuture<Long> waiting = store.waitingCount(target).exceptionally(error -> 0L);
        CompletableFuture<LockHolds> holds = store.holds(target);
        CompletableFuture<LockState> summary = store.inspect(target, kind);
        return CompletableFuture.allOf(summary, holds, waiting).thenCompose(done -> {
            LockState state = summary.join();
            if (!state.isHeld()) {
                return CompletableFuture.completedFuture(LockInfo.free(target.name(), target.key(), waiting.join()));
            }
            Holders holders = new Holders();
            CompletableFuture<LockHolder> holder = holders.of(state.owner(), state.holder());
            List<CompletableFuture<HoldInfo>> shown = inView(holds.join(), kind, holders);
            return CompletableFuture.allOf(shown.toArray(CompletableFuture[]::new)).thenCombine(holder, (all, who) ->
                    LockInfo.of(target.name(), target.key(), heldKind(holds.join(), kind, ownKind), Optional.of(who),
                            state.holdCount(),
                            Duration.ofMillis(Math.max(0, state.pttlMs())), state.token(), waiting.join(),
                            Duration.ofMillis(state.heldMs()), shown.stream().map(CompletableFuture::join).toList(),
                            holds.join().permits()));
        });
    }

    /**
     * The kind held, as far as the store tells: shared holds are a semaphore's permits (a permit count is
     * stored) or readers; an exclusive hold is the viewing lock's own kind (a reader's view of one: a writer),
     * unknown to a listing or a semaphore's view.
     */
    private static Optional<dev.dlock.LockKind> heldKind(LockHolds holds, LockKind view, boolean ownKind) {
        if (holds.permits() > 0) {
            return Optional.of(dev.dlock.LockKind.PERMIT);
        }
        if (holds.holds().stream().anyMatch(LockHolds.HoldState::shared)) {
            return Optional.of(dev.dlock.LockKind.READ);
        }
        if (!ownKind || view == LockKind.PERMIT) {
            return Optional.empty();
        }
        return Optional.of(view == LockKind.READ ? dev.dlock.LockKind.WRITE : dev.dlock.LockKind.valueOf(view.name()));
    }

    /** The holds the kind's view shows: a read lock's (or semaphore's) the shared ones, a write lock's the exclusive one. */
    private static List<CompletableFuture<HoldInfo>> inView(LockHolds all, LockKind kind, Holders holders) {
        return all.holds().stream()
                .filter(hold -> kind.mode().isEmpty() || hold.shared() == kind.mode().equals("r"))
                .map(hold -> holders.of(hold.owner(), hold.holder()).thenApply(who -> HoldInfo.of(who,
                        hold.holdCount(), Duration.ofMillis(Math.max(0, hold.pttlMs())), hold.token(), hold.shared())))
                .toList();
    }

    /**
     * The holders of one inspection: a recorded holder description as it is, else the owner's
     * client record (the reentrant lock records none per hold), read once per owner.
     */
    private final class Holders {
        private final Map<String, CompletableFuture<LockHolder>> byOwner = new HashMap<>();

        CompletableFuture<LockHolder> of(String owner, String recorded) {
            if (!recorded.isEmpty()) {
                return CompletableFuture.completedFuture(ClientIdentity.parseHolder(recorded));
            }
            return byOwner.computeIfAbsent(owner, id -> ClientRecord.holderOf(store, id));
        }
    }

    /** Every held lock whose name matches the glob {@code namePattern}, whatever its kind, sorted by name. */
    public CompletableFuture<List<LockInfo>> list(String namePattern) {
        return store.lockNames(namePattern).thenCompose(this::heldAmong).exceptionallyCompose(error -> {
            if (!(Failures.unwrap(error) instanceof IncompleteScan incomplete)) {
                return CompletableFuture.failedFuture(error);
            }
            // the masters that answered are listed; those that did not are named, never left out unsaid
            List<NodeError> failed = incomplete.failures().stream().map(NodeFailure::toNodeError).toList();
            return heldAmong(incomplete.found()).thenApply(listed -> {
                throw new LockListIncompleteException("list incomplete: " + failed.size() + " of "
                        + incomplete.mastersAsked() + " masters failed (" + failed.stream().map(NodeError::toString)
                        .collect(Collectors.joining("; ")) + "); the locks of the other "
                        + (incomplete.mastersAsked() - failed.size()) + " are listed",
                        incomplete.failures().get(0), listed, failed);
            });
        });
    }

    private CompletableFuture<List<LockInfo>> heldAmong(List<String> names) {
        List<CompletableFuture<LockInfo>> infos = new ArrayList<>();
        for (String name : names) {
            infos.add(inspect(LockTarget.of(keyPrefix, name), LockKind.anyHolderView(), false));
        }
        return CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new)).thenApply(done -> infos.stream()
                .map(CompletableFuture::join)
                .filter(LockInfo::isLocked)
                .sorted(Comparator.comparing(LockInfo::name))
                .toList());
    }
}
