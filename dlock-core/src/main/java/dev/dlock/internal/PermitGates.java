package dev.dlock.internal;

import dev.dlock.internal.store.LockTarget;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One client's admission to its semaphores: of one semaphore, at most its permit count of the
 * client's acquisitions are in the acquire loop or holding at once; the others queue here, in the
 * order they came, and are admitted one by one as those end. A client can never hold more permits
 * than the count, so the queued ones lose nothing by not asking Redis: a release wakes at most the
 * count of this client's waiters instead of all of them (no thundering herd on its connection), and
 * within one client the permits go first come first served. A gate is dropped when nobody is in it
 * or queued, so memory does not grow with the names ever used.
 */
public final class PermitGates {

    private static final CompletableFuture<Void> ADMITTED = CompletableFuture.completedFuture(null);

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

    private static final class Gate {
        final int permits;
        int admitted;
        final ArrayDeque<CompletableFuture<Void>> queue = new ArrayDeque<>();

        Gate(int permits) {
            this.permits = permits;
        }
    }

    /** The gate of a semaphore of this count: one per name and count. */
    public static String key(LockTarget target, int permits) {
        return target.key() + "\t" + permits;
    }

    /**
     * Completes when admitted, at once if a place is free. Pair an admission with one
     * {@link #leave}. A caller that stops waiting cancels the entry; if the cancel fails it was
     * admitted meanwhile, and leaves.
     */
    public CompletableFuture<Void> enter(String key, int permits) {
        CompletableFuture<Void>[] entry = newEntry();
        gates.compute(key, (k, gate) -> {
            Gate current = gate == null ? new Gate(permits) : gate;
            if (current.admitted < current.permits) {
                current.admitted++;
                entry[0] = ADMITTED;
            } else {
                entry[0] = new CompletableFuture<>();
                current.queue.addLast(entry[0]);
            }
            return current;
        });
        return entry[0];
    }

    /** An admitted caller is done: its place goes to the first caller still queued. */
    public void leave(String key) {
        CompletableFuture<Void>[] next = newEntry();
        gates.computeIfPresent(key, (k, gate) -> {
            CompletableFuture<Void> queued;
            while ((queued = gate.queue.pollFirst()) != null) {
                if (!queued.isDone()) {
                    next[0] = queued;
                    return gate;
                }
            }
            gate.admitted--;
            return gate.admitted == 0 ? null : gate;
        });
        // outside the map's lock: the admitted caller's next steps run here
        if (next[0] != null && !next[0].complete(null)) {
            // it gave up meanwhile: the place goes on
            leave(key);
        }
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Void>[] newEntry() {
        return new CompletableFuture[1];
    }
}
