package dev.dlock.cli.demo;

import dev.dlock.LockClient;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One of the shop's app servers: its own {@link LockClient}, its own way to the stock and orders,
 * and its own buyer threads, as separate processes on separate machines would have. (They share a
 * JVM only so that the demo starts in a second.)
 */
final class AppServer implements AutoCloseable {

    private final String name;
    private final LockClient locks;
    private final Stockroom stockroom;
    private final ExecutorService threads;

    AppServer(String name, LockClient locks, Stockroom stockroom, int threadCount) {
        this.name = name;
        this.locks = locks;
        this.stockroom = stockroom;
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

    /** Safe for every buyer thread of this server. */
    Stockroom stockroom() {
        return stockroom;
    }

    ExecutorService threads() {
        return threads;
    }

    @Override
    public void close() {
        threads.shutdownNow();
        try {
            stockroom.close();
        } finally {
            locks.close();
        }
    }
}
