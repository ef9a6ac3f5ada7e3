package dev.dlock.internal.memory;

import dev.dlock.internal.store.LockKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One lock name's state in memory: its exclusive hold (reentrant, fair or write lock) or its
 * shared holds (readers or semaphore permits), the fair lock's queue and the waiting writers'
 * marks. Guarded by its {@link MemorySpace}; every time is {@link System#nanoTime()}.
 */
public final class MemoryLock {

    /** One hold; {@code count} re-entries. */
    public static final class Hold {
        final LockKind kind;
        final String owner;
        final long token;
        final String holder;
        final long startNanos;
        int count = 1;
        long endNanos;

        Hold(LockKind kind, String owner, long token, String holder, long startNanos, long endNanos) {
            this.kind = kind;
            this.owner = owner;
            this.token = token;
            this.holder = holder;
            this.startNanos = startNanos;
            this.endNanos = endNanos;
        }
    }

    public Hold exclusive;
    /** Readers, or a semaphore's permits, by owner id. */
    public final Map<String, Hold> shared = new LinkedHashMap<>();
    /** The semaphore's permit count while a permit is held; 0 otherwise. */
    public int permits;
    /** The fair lock's waiters in request order: waiter id to the deadline by which it must ask again. */
    public final LinkedHashMap<String, Long> queue = new LinkedHashMap<>();
    /** The fair waiters' tickets (their place, kept across attempts). */
    public final Map<String, Long> tickets = new LinkedHashMap<>();
    /** Waiting writers' marks, which hold new readers back: waiter id to deadline. */
    public final Map<String, Long> writerMarks = new LinkedHashMap<>();

    /** Drops what has run out by {@code now}. */
    public void expire(long now) {
        if (exclusive != null && exclusive.endNanos - now <= 0) {
            exclusive = null;
        }
        shared.values().removeIf(hold -> hold.endNanos - now <= 0);
        if (shared.isEmpty()) {
            permits = 0;
        }
        queue.values().removeIf(deadline -> deadline - now <= 0);
        tickets.keySet().retainAll(queue.keySet());
        writerMarks.values().removeIf(deadline -> deadline - now <= 0);
    }

    public boolean isHeld() {
        return exclusive != null || !shared.isEmpty();
    }

    public boolean isEmpty() {
        return !isHeld() && queue.isEmpty() && writerMarks.isEmpty();
    }

    /** The hold of the owner in the kind's place (exclusive or shared), or null. */
    public Hold holdOf(LockKind kind, String owner) {
        if (isShared(kind)) {
            Hold hold = shared.get(owner);
            return hold != null && hold.kind == kind ? hold : null;
        }
        return exclusive != null && exclusive.owner.equals(owner) && exclusive.kind == kind ? exclusive : null;
    }

    /** Every hold: the shared ones, then the exclusive one. */
    List<Hold> holds() {
        List<Hold> all = new ArrayList<>(shared.values());
        if (exclusive != null) {
            all.add(exclusive);
        }
        return all;
    }

    /** Drops the hold; true when it was there. */
    public boolean drop(Hold hold) {
        if (exclusive == hold) {
            exclusive = null;
            return true;
        }
        return shared.remove(hold.owner, hold);
    }

    public static boolean isShared(LockKind kind) {
        return kind == LockKind.READ || kind == LockKind.PERMIT;
    }
}
