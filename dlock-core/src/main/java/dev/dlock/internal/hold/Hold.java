package dev.dlock.internal.hold;

import dev.dlock.LockLostException;
import dev.dlock.LockObserver.LossCause;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockKind;
import dev.dlock.internal.store.LockTarget;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One owner's hold on one lock, as this process knows it. A thread-bound hold counts re-entries
 * (touched only by its thread); a handle's hold has count 1.
 */
public final class Hold {
    private static final AtomicIntegerFieldUpdater<Hold> ENDED = AtomicIntegerFieldUpdater.newUpdater(Hold.class, "ended");

    public final LockTarget target;
    public final LockKind kind;
    public final String name;
    public final String owner;
    public final String holder;
    public final long token;
    public final long leaseMs;
    /** Monotonic time until which the lease is known valid (attempt start + validity), moved by renewals. */
    public volatile long validUntilNanos;
    /** Written by the owning thread only; read elsewhere for re-creating a Redlock copy, where staleness is harmless. */
    public volatile int count = 1;
    private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    private final Ticker ticker;
    /** What must let go of the hold once it is declared lost (the registry, the watchdog). */
    private final List<Runnable> lossActions = new CopyOnWriteArrayList<>();
    private volatile boolean declaredLost;
    /** When it began (registered after its grant), on the ticker's clock. */
    public final long heldSinceNanos;
    /** Where its acquire was called from, when the client captures it; else null. */
    public final StackTraceElement acquireSite;
    /** Whether the slow-hold warning was logged for it. */
    public volatile boolean reportedSlow;
    /** 1 once its end (released or lost) was reported: see {@link #end()}. */
    private volatile int ended;

    /**
     * @param ticker      the clock of {@code validUntilNanos}
     * @param acquireSite where its acquire was called from, or null
     */
    public Hold(LockTarget target, LockKind kind, String owner, String holder, long token, long leaseMs,
         long validUntilNanos, Ticker ticker, StackTraceElement acquireSite) {
        this.target = target;
        this.kind = kind;
        this.name = target.name();
        this.owner = owner;
        this.holder = holder;
        this.token = token;
        this.leaseMs = leaseMs;
        this.validUntilNanos = validUntilNanos;
        this.ticker = ticker;
        this.acquireSite = acquireSite;
        this.heldSinceNanos = ticker.nanoTime();
    }

    /** True only for the first caller: the one who reports how the hold ended. */
    public boolean end() {
        return ENDED.compareAndSet(this, 0, 1);
    }

    /**
     * Runs the action when the hold is declared lost, or at once if it is already: how the
     * registry and the watchdog let go of it, whoever finds the loss. Independent of
     * {@link #whenLost()}, which callers of the API can see.
     */
    public void onLoss(Runnable action) {
        lossActions.add(action);
        if (declaredLost) {
            action.run();
        }
    }

    /** What a store needs of this hold, as it is now. */
    public HeldLock snapshot() {
        return new HeldLock(target, kind, owner, token, Math.max(1, count), holder);
    }

    /** Records the loss; true only for the first caller, who must tell the listeners. */
    public boolean markLost(LossCause cause, String reason) {
        declaredLost = true;
        lossActions.forEach(Runnable::run);
        return lost.complete(new LockLostException(name, token, cause, kind.label() + " '" + name + "' was lost (fencing token "
                + token + "): " + reason));
    }

    /** The loss, or null while the hold is not known to be lost. */
    public LockLostException lossOrNull() {
        return lost.getNow(null);
    }

    /**
     * Lost, or its known validity has run out: an explicit lease's end (the store has freed it by now),
     * or a watchdog hold that no renewal reached in time (the watchdog marks it lost at that moment,
     * but the holder must not rely on it even a scheduling delay longer).
     */
    public boolean isKnownInvalid() {
        return lost.isDone() || ticker.nanoTime() - validUntilNanos >= 0;
    }

    /** How long the hold is still known valid; 0 once it is not. */
    public long remainingNanos() {
        return isKnownInvalid() ? 0 : Math.max(0, validUntilNanos - ticker.nanoTime());
    }

    public CompletableFuture<LockLostException> whenLost() {
        return lost;
    }
}
