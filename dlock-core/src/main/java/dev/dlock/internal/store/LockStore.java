package dev.dlock.internal.store;

import dev.dlock.LockHolder;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where locks live, in the terms of locks: acquire, release, abandon, leave the queue, renew a
 * batch, force-release, inspect, list by name pattern, count the waiting clients, keep the
 * client's record, and a source of wake-ups to subscribe to. The acquire loop, the watchdog, the
 * handoff, the inspector and the lock types talk to this interface only, so every lock type works
 * on every store (one Redis, a Redlock quorum, a Cluster, memory). A store is opened by its
 * {@link StoreFactory}, chosen in one place: the client's builder.
 *
 * <p>Every kind's acquire answers like the reentrant lock's (see {@link AcquireReply}) and its
 * release with the holds left ({@code > 0}), 0 when freed, -1 when the caller no longer owns it.
 * A release that frees a lock tells its waiters on the lock's channel ({@link LockTarget#channel()}):
 * a message naming a waiter ("token:waiterId") wakes that waiter alone, any other wakes them all,
 * and two equal messages in a row count once. A forced release tells each holder's client on its
 * channel ({@link WakeUpSource#clientChannel}) with "key\towner".
 *
 * <p>Futures fail with {@link dev.dlock.LockBackendException} whose message says what is known:
 * which server failed how, and whether the outcome is unknown; the same is carried as data
 * ({@link dev.dlock.LockBackendException#nodeErrors()}).
 */
public interface LockStore extends AutoCloseable {

    /** Where the locks live, for messages (addresses without credentials). */
    String describe();

    /** What the store runs on, as messages name it when it fails: "Redis", "PostgreSQL", "the store". */
    default String productName() {
        return "the store";
    }

    /** Release messages and client notices of this store, for the client's waiters. */
    WakeUpSource wakeUps();

    /**
     * Whether grants are decided by a quorum of independent servers (Redlock): a grant is then
     * valid for less than its lease (see {@link #validUntilNanos}), a waiter granted by a majority
     * may still be queued on the others, and a release is always a release (no handoff).
     */
    default boolean isQuorum() {
        return false;
    }

    /**
     * Whether a release message can hand the lock to a waiter by naming it, so that a waiter whose
     * attempt failed without an answer must wait on under a fresh waiter id (see QueuePlace). False
     * where a waiter's place is a record of its own that its next attempt finds by the same id
     * (ZooKeeper's queued node): a fresh id there would leave the first record standing before every
     * later waiter whenever the leave of the old id missed it.
     */
    default boolean handsOverByNamingWaiters() {
        return true;
    }

    /**
     * The owner id the store keeps the hold of {@code owner} under, as its forced-release notices
     * name it: the same, except where the store keeps a hold passed between threads of one client
     * under the id of the hold it granted (PostgreSQL's passes).
     */
    default String storedOwner(String owner) {
        return owner;
    }

    /**
     * Whether every waiter that may wait, of every kind, keeps a place in the store's queue (under
     * one waiter id, left when it stops waiting), and the store's wake-ups name each waiter they let
     * hold ("node:waiterId"), so that a waiter wakes for no other message (ZooKeeper: a deletion
     * wakes exactly the waiters it grants, see ZkWakeUps). False where a plain release message is for
     * every waiter of the lock.
     */
    default boolean queuesEveryWaiter() {
        return false;
    }

    /**
     * One attempt of the given kind. When its outcome is unknown (timeout) the store has already
     * sent a best-effort release of a fresh attempt before failing the future.
     */
    CompletableFuture<AcquireReply> acquire(LockTarget target, LockKind kind, AcquireRequest request);

    /** Gives back one hold: holds left ({@code > 0}), 0 when freed, -1 when the caller no longer owns it. */
    CompletableFuture<Long> release(LockTarget target, LockKind kind, String owner, long token);

    /** The handoff of a release to a waiter in one step, where this store can; empty where a release is always a release. */
    default Optional<StoreHandoff> handoff() {
        return Optional.empty();
    }

    /** A multi-lock's names in one step, all or none, where this store can; empty where they are taken one by one. */
    default Optional<StoreAllOrNone> allOrNone() {
        return Optional.empty();
    }

    /** Best effort: drops every hold of the owner. Never fails. */
    CompletableFuture<Void> abandon(LockTarget target, LockKind kind, String owner);

    /**
     * Best effort: a waiter of a queued kind stops waiting, so its place in the queue (or its
     * waiting mark) goes at once instead of lapsing after the waiter timeout. Never fails.
     */
    CompletableFuture<Void> leave(LockTarget target, LockKind kind, String waiterId);

    /** Frees the lock whoever holds it, whatever its kind: true when it was held. */
    CompletableFuture<Boolean> forceRelease(LockTarget target);

    /** Extends the leases of the holds (of any kinds), all in as few round trips as possible. */
    CompletableFuture<Renewal[]> renew(List<HeldLock> holds, long leaseMs);

    /** The lock's state as the kind sees it (a read lock: its readers; a write lock: its writer). */
    CompletableFuture<LockState> inspect(LockTarget target, LockKind kind);

    /** Every live hold of the name, of any kind (a Redlock: each hold a quorum of the nodes has). */
    CompletableFuture<LockHolds> holds(LockTarget target);

    /**
     * The names of the locks under this client's key prefix whose name matches the glob
     * ({@code *}, {@code ?}, {@code [..]}), held or with waiters, from every server; when some servers
     * fail and others answer, an {@link IncompleteScan} with the names the others gave.
     */
    CompletableFuture<List<String>> lockNames(String namePattern);

    /** Clients waiting for the lock, each counted once (on a quorum: the most any server reports). */
    CompletableFuture<Long> waitingCount(LockTarget target);

    /**
     * Best effort, never fails: writes the client's record ({@link ClientRecordEntry}), ahead of
     * the store operations issued after it; done when every server answered or failed.
     */
    CompletableFuture<Void> writeClientRecord(ClientRecordEntry entry);

    /** Best effort, never fails: the client closes, its record goes. */
    CompletableFuture<Void> dropClientRecord(String clientId);

    /**
     * Who the thread of the client is, from the client's record: empty when no server has the
     * record or none answers. The holder's thread is the recorded name of {@code threadId}, else
     * the id itself.
     */
    CompletableFuture<Optional<LockHolder>> readClientRecord(String clientId, String threadId);

    /**
     * Until when a grant made at {@code startNanos} for {@code leaseMs} is known valid: the whole
     * lease where one clock decides; less where several servers' clocks do (a quorum).
     */
    default long validUntilNanos(long startNanos, long leaseMs) {
        return startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
    }

    @Override
    void close();
}
