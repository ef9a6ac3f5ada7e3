package dev.dlock;

/**
 * Where a client's locks live: one value per store, passed to {@link LockClientBuilder#store(Store)}. Each
 * store's options are methods of its own value ({@link RedisStore}, {@link PostgresStore},
 * {@link ZooKeeperStore}, {@link InMemoryStore}), checked as they are given (an
 * {@link IllegalArgumentException} naming the bad value), so no option of one store can be given to
 * another. The values are immutable: every {@code with...}-style method returns a new value. Every lock
 * kind (reentrant, fair, read-write, semaphore, multi-lock), lease, watchdog renewal, fencing token and loss
 * notice works on every store; docs/deployments.md compares them.
 *
 * <p>Each store's client library is an optional dependency of dlock-core, which the application adds:
 * Lettuce ({@code io.lettuce:lettuce-core}) for Redis, the PostgreSQL JDBC driver
 * ({@code org.postgresql:postgresql}) for PostgreSQL, the ZooKeeper client
 * ({@code org.apache.zookeeper:zookeeper}) for ZooKeeper; a factory whose library is missing throws
 * {@link IllegalStateException} naming its Maven coordinates.
 *
 * <p>Not for implementation: the permitted classes are dlock's.
 */
public sealed interface Store permits RedisStore, PostgresStore, ZooKeeperStore, InMemoryStore {

    /**
     * The locks in this JVM's memory: for unit tests and local development, never for locks between
     * processes. See {@link InMemoryStore}.
     *
     * @return the in-memory store
     */
    static InMemoryStore inMemory() {
        return InMemoryStore.INSTANCE;
    }
}
