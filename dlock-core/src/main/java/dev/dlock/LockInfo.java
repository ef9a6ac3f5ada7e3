package dev.dlock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of one lock's state in the store, read in one round trip. Immutable; a final class (not a
 * record) so that later versions can add fields: {@link #of} makes one, and later versions may add
 * factories with more fields beside it.
 *
 * <p>A name held by several at once (the readers of a read-write lock, the permits of a
 * semaphore) is summed up in the first fields, as its {@link DistributedLock#info()} describes,
 * and listed hold by hold in {@link #holds()}.
 */
public final class LockInfo {

    private final String name;
    private final String key;
    private final Optional<LockKind> kind;
    private final Optional<LockHolder> holder;
    private final int holdCount;
    private final Duration remainingLease;
    private final long fencingToken;
    private final long waitingClients;
    private final Duration heldFor;
    private final List<HoldInfo> holds;
    private final int permits;

    private LockInfo(String name, String key, Optional<LockKind> kind, Optional<LockHolder> holder, int holdCount,
            Duration remainingLease, long fencingToken, long waitingClients, Duration heldFor, List<HoldInfo> holds,
            int permits) {
        this.name = Objects.requireNonNull(name, "name");
        this.key = Objects.requireNonNull(key, "key");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.holder = Objects.requireNonNull(holder, "holder");
        this.holdCount = holdCount;
        this.remainingLease = Objects.requireNonNull(remainingLease, "remainingLease");
        this.fencingToken = fencingToken;
        this.waitingClients = waitingClients;
        this.heldFor = Objects.requireNonNull(heldFor, "heldFor");
        this.holds = List.copyOf(holds);
        this.permits = permits;
    }

    /**
     * A snapshot, as dlock's stores make them (and tests of code that reads them).
     *
     * @param name           the lock name
     * @param key            the lock's key in the store, {@code <prefix>{name}}
     * @param kind           the kind of what is held, where the store knows it (see {@link #kind()})
     * @param holder         who holds it; empty when the lock is free
     * @param holdCount      re-entries of the current hold (0 when free)
     * @param remainingLease time left on the lease ({@link Duration#ZERO} when free)
     * @param fencingToken   token of the current hold (0 when free)
     * @param waitingClients clients waiting for the lock
     * @param heldFor        how long the current hold has lasted ({@link Duration#ZERO} when free)
     * @param holds          every hold of the name in this view (copied)
     * @param permits        a semaphore's permit count; 0 when the name is not a held semaphore
     * @return the snapshot
     * @throws NullPointerException an argument other than the numbers is null
     */
    public static LockInfo of(String name, String key, Optional<LockKind> kind, Optional<LockHolder> holder, int holdCount,
            Duration remainingLease, long fencingToken, long waitingClients, Duration heldFor, List<HoldInfo> holds,
            int permits) {
        return new LockInfo(name, key, kind, holder, holdCount, remainingLease, fencingToken, waitingClients, heldFor,
                holds, permits);
    }

    /**
     * The snapshot of a free lock.
     *
     * @param name           the lock name
     * @param key            the lock's key in the store
     * @param waitingClients clients waiting for the lock
     * @return the snapshot: no holder, no holds, zero lease and token
     */
    public static LockInfo free(String name, String key, long waitingClients) {
        return new LockInfo(name, key, Optional.empty(), Optional.empty(), 0, Duration.ZERO, 0, waitingClients,
                Duration.ZERO, List.of(), 0);
    }

    /**
     * The lock name (a multi-lock's: its {@linkplain DistributedLock#name() label}).
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The lock's key in the store, {@code <prefix>{name}} (a multi-lock's: its names' keys, separated by spaces).
     *
     * @return the key
     */
    public String key() {
        return key;
    }

    /**
     * The kind of what is held, where the store knows it: {@link LockKind#PERMIT} for a semaphore's permits,
     * {@link LockKind#READ} for a read-write lock's readers. For an exclusive hold the store does not record
     * which exclusive kind took it (a plain, fair or write lock of one name exclude one another): the
     * {@link DistributedLock#info()} of a lock answers that lock's own kind (a multi-lock's:
     * {@link LockKind#REENTRANT}), {@link LockClient#listLocks(String)} answers empty.
     *
     * @return the kind held; empty when the lock is free or the store cannot tell
     */
    public Optional<LockKind> kind() {
        return kind;
    }

    /**
     * Who holds it.
     *
     * @return the holder; empty when the lock is free
     */
    public Optional<LockHolder> holder() {
        return holder;
    }

    /**
     * Re-entries of the current hold.
     *
     * @return the count; 0 when free
     */
    public int holdCount() {
        return holdCount;
    }

    /**
     * Time left on the lease, as the store had it.
     *
     * @return the time left; {@link Duration#ZERO} when free
     */
    public Duration remainingLease() {
        return remainingLease;
    }

    /**
     * Token of the current hold.
     *
     * @return the token; 0 when free
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * Clients with at least one thread or handle waiting for the lock (each client waits on one shared
     * connection, so this counts clients, not threads).
     *
     * @return the count
     */
    public long waitingClients() {
        return waitingClients;
    }

    /**
     * How long the current hold has lasted: since it was granted, on the store's clock, so the reader's clock
     * does not matter. A re-entry does not restart it; a new holder (also a fair lock's hand-over) does. For a
     * read-write lock's readers and a semaphore's permits: since the oldest hold still held. Over Redlock: the
     * median of the nodes' copies. It comes from the fencing token, which is at least the server's time at
     * the grant, so it can read short after a failover to a server whose clock is behind.
     *
     * @return the time held; {@link Duration#ZERO} when free
     */
    public Duration heldFor() {
        return heldFor;
    }

    /**
     * Every hold of the name in this view, in the order they were granted (by fencing token; on Redlock, in
     * the order they reached a quorum, which a node that granted a hold late, after its acquire returned, can
     * put out of token order).
     *
     * @return the holds, unmodifiable; empty when free
     */
    public List<HoldInfo> holds() {
        return holds;
    }

    /**
     * A semaphore's permit count, as stored with it while any permit is held.
     *
     * @return the count; 0 when the name is not a held semaphore
     */
    public int permits() {
        return permits;
    }

    /**
     * Whether anyone held the lock when the snapshot was taken.
     *
     * @return {@code true} when {@link #holder()} is present
     */
    public boolean isLocked() {
        return holder.isPresent();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockInfo that && name.equals(that.name) && key.equals(that.key)
                && kind.equals(that.kind) && holder.equals(that.holder) && holdCount == that.holdCount
                && remainingLease.equals(that.remainingLease) && fencingToken == that.fencingToken
                && waitingClients == that.waitingClients && heldFor.equals(that.heldFor) && holds.equals(that.holds)
                && permits == that.permits;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, key, kind, holder, holdCount, remainingLease, fencingToken, waitingClients, heldFor,
                holds, permits);
    }

    @Override
    public String toString() {
        return "LockInfo[name=" + name + ", key=" + key + ", kind=" + kind.map(Enum::name).orElse("-") + ", holder="
                + holder.map(LockHolder::toString).orElse("-") + ", holdCount=" + holdCount + ", remainingLease="
                + remainingLease + ", fencingToken=" + fencingToken + ", waitingClients=" + waitingClients
                + ", heldFor=" + heldFor + ", holds=" + holds + ", permits=" + permits + "]";
    }
}
