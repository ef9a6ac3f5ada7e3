package dev.dlock.cli.demo;

import dev.dlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One of the shop's app servers: its own {@link LockClient}, its own Redis connection for the
 * stock and orders, and its own buyer threads, as separate processes on separate machines would
 * have. (They share a JVM only so that the demo starts in a second.)
 */
final class AppServer implements AutoCloseable {

    private final String name;
    private final LockClient locks;
    private final StatefulRedisConnection<String, String> connection;
    private final ExecutorService threads;

    AppServer(String name, LockClient locks, RedisClient redis, int threadCount) {
        this.name = name;
        this.locks = locks;
        this.connection = redis.connect();
        AtomicInteger number = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(threadCount, runnable -> {
            Thread thread = new Thread(runnable, name + "-buyer-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    String name() {
        return name;
    }

    LockClient locks() {
        return locks;
    }

    /** Thread-safe: Lettuce pipelines every thread's commands on the one connection. */
    RedisCommands<String, String> redis() {
        return connection.sync();
    }

    ExecutorService threads() {
        return threads;
    }

    @Override
    public void close() {
        threads.shutdownNow();
        try {
            connection.close();
        } finally {
            locks.close();
        }
    }
}
