package dev.dlock.spring.integration;

import dev.dlock.LockClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * Spring Integration's lock registry on dlock: a drop-in for {@code RedisLockRegistry} (same
 * interfaces for the locks it returns), so an application switches by replacing that one bean,
 * or by removing it and letting the auto-configuration provide this one.
 *
 * <p>{@link #obtain(Object)} returns the reentrant dlock lock named by the key's
 * {@code toString()}: the same object for the same key until {@link #expireUnusedOlderThan(long)}
 * forgets it or more than {@value #CACHE_CAPACITY} other keys were obtained since, and an equal
 * one after that (lock objects of one name share their holds, so forgetting one that is held is
 * harmless). Registries on clients with the same Redis and key prefix exclude each other.
 *
 * <p>Differences from {@code RedisLockRegistry}: an {@code unlock()} by a thread that does not
 * hold the lock throws {@link IllegalMonitorStateException} (as {@code ReentrantLock} does), not
 * {@link IllegalStateException}; an {@code unlock()} after the hold was lost throws
 * {@link dev.dlock.LockLostException}, not {@code ConcurrentModificationException}; holds taken
 * without a lease are renewed by dlock's watchdog, so there is no {@code renewLock} to call.
 */
public final class DlockLockRegistry implements ExpirableLockRegistry<DistributedLock> {
    /** How many lock objects the registry keeps, the most recently obtained. */
    public static final int CACHE_CAPACITY = 10_000;

    private final LockClient client;
    private final Map<String, Obtained> locks = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Obtained> eldest) {
            return size() > CACHE_CAPACITY;
        }
    };

    /**
     * A registry whose locks live where the client's do.
     *
     * @param client the dlock client; the registry does not close it
     */
    public DlockLockRegistry(LockClient client) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        this.client = client;
    }

    /**
     * The lock of this key. No Redis call.
     *
     * @param lockKey the key; its {@code toString()} is the lock's name
     * @return the reentrant lock, the same object for the same key
     * @throws IllegalArgumentException the key is null, or its text is blank or longer than 1024
     *                                  characters
     */
    @Override
    public DlockRegistryLock obtain(Object lockKey) {
        if (lockKey == null) {
            throw new IllegalArgumentException("lockKey must not be null");
        }
        String name = lockKey.toString();
        long now = System.nanoTime();
        synchronized (locks) {
            Obtained previous = locks.get(name);
            DlockRegistryLock lock = previous != null ? previous.lock : new DlockRegistryLock(client, client.getLock(name));
            locks.put(name, new Obtained(lock, now));
            return lock;
        }
    }

    /**
     * Forgets the locks last obtained more than {@code age} milliseconds ago; a later
     * {@link #obtain(Object)} of their keys returns new objects.
     *
     * @param age milliseconds; zero or less forgets every lock
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        synchronized (locks) {
            locks.values().removeIf(obtained -> now - obtained.at > ageNanos);
        }
    }

    @Override
    public String toString() {
        return "DlockLockRegistry[" + client.address() + "]";
    }

    private record Obtained(DlockRegistryLock lock, long at) {
    }
}
