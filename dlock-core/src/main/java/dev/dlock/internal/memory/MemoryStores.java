package dev.dlock.internal.memory;

import dev.dlock.internal.store.StoreFactory;

/**
 * The in-memory backend: locks kept in this JVM, shared by every in-memory client of it, for tests
 * and local development. Every lock kind, lease, renewal, fencing token, fair queue and loss
 * notice works as on Redis; nothing survives the JVM and no other process sees the locks.
 */
public final class MemoryStores {

    /** The JVM's locks: in-memory clients with the same key prefix share them. */
    private static final MemorySpace SPACE = new MemorySpace();

    private MemoryStores() {
    }

    /** The store of this JVM's in-memory locks. */
    public static StoreFactory inThisJvm() {
        return context -> new MemoryStore(SPACE, context.settings().keyPrefix());
    }

    /** Whether nothing is left of any lock under the prefix (no hold, no queued waiter, no mark): for tests. */
    public static boolean isEmpty(String keyPrefix) {
        synchronized (SPACE) {
            return SPACE.keys(System.nanoTime()).stream().noneMatch(key -> key.startsWith(keyPrefix));
        }
    }

    /** How many waiters the fair lock of {@code key} has queued (live ones only): for tests. */
    public static int queued(String key) {
        synchronized (SPACE) {
            MemoryLock lock = SPACE.existing(key, System.nanoTime());
            return lock == null ? 0 : lock.queue.size();
        }
    }
}
