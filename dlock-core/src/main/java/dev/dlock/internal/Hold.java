package dev.dlock.internal;

import dev.dlock.LockLostException;
import java.util.concurrent.CompletableFuture;

/**
 * One owner's hold on one lock, as this process knows it. A thread-bound hold counts re-entries
 * (touched only by its thread); a handle's hold has count 1.
 */
final class Hold {
    final LockTarget target;
    final LockKind kind;
    final String name;
    final String owner;
    final String holder;
    final long token;
    final long leaseMs;
    /** Monotonic time until which the lease is known valid (attempt start + validity), moved by renewals. */
    volatile long validUntilNanos;
    /** Written by the owning thread only; read elsewhere for re-creating a Redlock copy, where staleness is harmless. */
    volatile int count = 1;
    private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();

    Hold(LockTarget target, LockKind kind, String owner, String holder, long token, long leaseMs,
         long validUntilNanos) {
        this.target = target;
        this.kind = kind;
        this.name = target.name();
        this.owner = owner;
        this.holder = holder;
        this.token = token;
        this.leaseMs = leaseMs;
        this.validUntilNanos = validUntilNanos;
    }

    /** Records the loss; true only for the first caller, who must tell the listeners. */
    boolean markLost(String reason) {
        return lost.complete(new LockLostException(name, token, kind.label() + " '" + name + "' was lost (fencing token "
                + token + "): " + reason));
    }

    /** The loss, or null while the hold is not known to be lost. */
    LockLostException lossOrNull() {
        return lost.getNow(null);
    }

    /**
     * Lost, or its known validity has run out: an explicit lease's end (Redis has freed it by now),
     * or a watchdog hold that no renewal reached in time (the watchdog marks it lost at that moment,
     * but the holder must not rely on it even a scheduling delay longer).
     */
    boolean isKnownInvalid() {
        return lost.isDone() || System.nanoTime() - validUntilNanos >= 0;
    }

    CompletableFuture<LockLostException> whenLost() {
        return lost;
    }
}
