package dev.dlock.processes;

import dev.dlock.DistributedReadWriteLock;
import dev.dlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM whose threads read and write under a read-write lock for a while, checking in
 * Redis that no one else is inside while a writer is. Each side counts itself in before it looks
 * at the other, so any overlap is seen by at least one of the two.
 * Args: redisUri lockName readerThreads writerThreads durationMillis readHoldMillis writePauseMillis
 * (a writer's think time between writes, outside the lock).
 * Keys: rw:readers, rw:writers (inside now), rw:violations, rw:overlaps, rw:reads, rw:writes.
 * Prints "DONE" and exits 0.
 */
public final class ReadWriteWorker {
    public static void main(String[] args) throws Exception {
        String uri = args[0];
        int readers = Integer.parseInt(args[2]);
        int writers = Integer.parseInt(args[3]);
        long readHoldNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        long writePauseNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = LockClient.create(uri);
             StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            DistributedReadWriteLock lock = client.getReadWriteLock(args[1]);
            // counted from here, not from JVM start: on a loaded machine connecting alone can take
            // longer than the whole run, and the threads then never took the lock
            long endNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < readers + writers; i++) {
                boolean writer = i >= readers;
                threads.add(new Thread(() -> {
                    while (System.nanoTime() < endNanos) {
                        if (writer) {
                            write(lock, commands);
                            LockSupport.parkNanos(writePauseNanos);
                        } else {
                            read(lock, commands, readHoldNanos);
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
        } finally {
            redis.shutdown();
        }
        System.out.println("DONE");
    }

    private static void read(DistributedReadWriteLock lock, RedisCommands<String, String> commands, long holdNanos) {
        lock.readLock().lock();
        try {
            if (commands.incr("rw:readers") > 1) {
                commands.incr("rw:overlaps");
            }
            String writersInside = commands.get("rw:writers");
            if (writersInside != null && !"0".equals(writersInside)) {
                commands.incr("rw:violations");
            }
            LockSupport.parkNanos(holdNanos);
            commands.decr("rw:readers");
            commands.incr("rw:reads");
        } finally {
            lock.readLock().unlock();
        }
    }

    private static void write(DistributedReadWriteLock lock, RedisCommands<String, String> commands) {
        lock.writeLock().lock();
        try {
            if (commands.incr("rw:writers") != 1) {
                commands.incr("rw:violations");
            }
            String inside = commands.get("rw:readers");
            if (inside != null && !"0".equals(inside)) {
                commands.incr("rw:violations");
            }
            LockSupport.parkNanos(1_000_000);
            commands.decr("rw:writers");
            commands.incr("rw:writes");
        } finally {
            lock.writeLock().unlock();
        }
    }
}
