package dev.dlock;

import io.lettuce.core.api.StatefulRedisConnection;
import java.util.concurrent.locks.LockSupport;

/**
 * A counter kept in Redis and incremented the unsafe way (GET, pause, SET), so that without
 * mutual exclusion concurrent increments get lost.
 */
final class UnsafeCounter {
    private final StatefulRedisConnection<String, String> connection;
    private final String key;

    UnsafeCounter(StatefulRedisConnection<String, String> connection, String key) {
        this.connection = connection;
        this.key = key;
    }

    void incrementUnsafely() {
        String value = connection.sync().get(key);
        long next = (value == null ? 0 : Long.parseLong(value)) + 1;
        LockSupport.parkNanos(200_000);
        connection.sync().set(key, Long.toString(next));
    }

    long value() {
        String value = connection.sync().get(key);
        return value == null ? 0 : Long.parseLong(value);
    }
}
