package dev.dlock;

import dev.dlock.internal.memory.MemoryStores;
import dev.dlock.internal.store.StoreFactory;

/**
 * Keeps the locks in this JVM's memory instead of a server: for unit tests and local development, never
 * for locks between processes. Every in-memory client of the JVM with the same
 * {@linkplain LockClientBuilder#keyPrefix(String) key prefix} shares the locks, as clients of one Redis do;
 * every lock kind, lease, watchdog renewal, fencing token, fair queue and loss notice works as on Redis.
 * Nothing survives the JVM. Needs no client library. {@link Store#inMemory()} gives it.
 */
public final class InMemoryStore implements Store {

    static final InMemoryStore INSTANCE = new InMemoryStore();

    private InMemoryStore() {
    }

    StoreFactory factory() {
        return MemoryStores.inThisJvm();
    }

    @Override
    public String toString() {
        return "InMemoryStore";
    }
}
