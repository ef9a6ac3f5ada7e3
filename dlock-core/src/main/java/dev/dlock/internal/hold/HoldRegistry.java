package dev.dlock.internal.hold;

import dev.dlock.internal.store.LockKind;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The holds of one client: all of them (so {@code close()} can release them), the thread-bound
 * ones by {@link ThreadSlot}, and the reentrant ones by lock key (a waiter of a lock held here
 * need not ask the store; see {@link dev.dlock.internal.acquire.LocalHandoff}). A hold leaves the
 * registry when it is forgotten (its last release) or lost; a thread-bound hold keeps its slot until its thread unlocks, so
 * that the unlock can report the loss.
 */
public final class HoldRegistry {

    /** Where a thread-bound hold is filed: its kind, its lock's name and its thread. */
    public record ThreadSlot(LockKind kind, String name, long threadId) {

        static ThreadSlot ofCurrentThread(LockKind kind, String name) {
            return new ThreadSlot(kind, name, Thread.currentThread().getId());
        }
    }

    private final Set<Hold> all = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<ThreadSlot, Hold> byThread = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Hold> handingOffByKey = new ConcurrentHashMap<>();

    public void add(Hold hold) {
        all.add(hold);
        if (hold.kind.handsOffLocally()) {
            handingOffByKey.put(hold.target.key(), hold);
        }
        hold.onLoss(() -> remove(hold));
    }

    public void remove(Hold hold) {
        all.remove(hold);
        handingOffByKey.remove(hold.target.key(), hold);
    }

    /** Whether the hold is still filed: neither forgotten nor lost. */
    public boolean isRegistered(Hold hold) {
        return all.contains(hold);
    }

    /** Every registered hold, as a live view (weakly consistent while it is iterated). */
    public Collection<Hold> live() {
        return Collections.unmodifiableSet(all);
    }

    /** Every registered hold, at this moment. */
    public List<Hold> snapshot() {
        return List.copyOf(all);
    }

    /** The registered hold of a kind that hands off locally ({@link LockKind#handsOffLocally()}) on this key. */
    public Hold handingOff(String key) {
        return handingOffByKey.get(key);
    }

    /** The current thread's hold of this kind on the named lock, or null. */
    public Hold ofCurrentThread(LockKind kind, String name) {
        return byThread.get(ThreadSlot.ofCurrentThread(kind, name));
    }

    public void bindToCurrentThread(Hold hold) {
        byThread.put(ThreadSlot.ofCurrentThread(hold.kind, hold.name), hold);
    }

    public void unbindFromCurrentThread(Hold hold) {
        byThread.remove(ThreadSlot.ofCurrentThread(hold.kind, hold.name), hold);
    }
}
