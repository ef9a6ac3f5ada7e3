package dev.dlock.processes;

import dev.dlock.DistributedReadWriteLock;
import dev.dlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
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
 * Args: redisUris lockName readerThreads writerThreads durationMillis readHoldMillis writePauseMillis
 * (a writer's think time between writes, outside the lock). redisUris is one Redis URI or several
 * separated by commas (Redlock over those masters); the counters live on the first.
 * Keys: rw:readers, rw:writers (inside now), rw:readers-by (hash: this process's pid → its readers
 * inside now), rw:most-readers (most readers ever inside at once), rw:most-processes (most
 * processes with a reader inside at once), rw:violations, rw:overlaps, rw:reads, rw:writes.
 * Start barrier: once connected it pushes its pid to rw:ready and waits (BLPOP rw:go) until the test
 * pushes one token per worker, so that the workers' runs overlap even when one JVM starts much
 * later than the other on a loaded machine. The run lasts durationMillis, longer (up to ten times) until
 * readers of two processes have been inside at once. Prints "DONE" and exits 0.
 */
public final class ReadWriteWorker {

    /**
     * A reader counts itself in, atomically with the maxima, then looks for a writer.
     * KEYS: rw:readers rw:readers-by rw:most-readers rw:most-processes rw:overlaps rw:writers
     * rw:violations. ARGV[1]: this process's id. Returns the readers inside, this one included.
     */
    private static final String READER_IN = """
            local inside = redis.call('INCR', KEYS[1])
            if inside > 1 then redis.call('INCR', KEYS[5]) end
            if inside > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], inside) end
            redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
            local processes = 0
            local by = redis.call('HGETALL', KEYS[2])
            for i = 2, #by, 2 do
              if tonumber(by[i]) > 0 then processes = processes + 1 end
            end
            if processes > tonumber(redis.call('GET', KEYS[4]) or '0') then redis.call('SET', KEYS[4], processes) end
            local writers = redis.call('GET', KEYS[6])
            if writers and writers ~= '0' then redis.call('INCR', KEYS[7]) end
            return inside
            """;
    private static final String[] READER_IN_KEYS = {"rw:readers", "rw:readers-by", "rw:most-readers",
            "rw:most-processes", "rw:overlaps", "rw:writers", "rw:violations"};

    public static void main(String[] args) throws Exception {
        int readers = Integer.parseInt(args[2]);
        int writers = Integer.parseInt(args[3]);
        long readHoldNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        long writePauseNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
        String self = Long.toString(ProcessHandle.current().pid());
        RedisClient redis = RedisClient.create(args[0].split(",")[0]);
        try (LockClient client = Workers.clientOn(args[0]).build();
             StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            DistributedReadWriteLock lock = client.getReadWriteLock(args[1]);
            Workers.awaitGo(commands, "rw");
            // counted from here, not from JVM start: on a loaded machine connecting alone can take
            // longer than the whole run, and the threads then never took the lock
            long startNanos = System.nanoTime();
            long endNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
            long lastNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4])) * 10;
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < readers + writers; i++) {
                boolean writer = i >= readers;
                threads.add(new Thread(() -> {
                    while (System.nanoTime() < endNanos
                            || (System.nanoTime() < lastNanos && !readersOfBothProcessesMet(commands))) {
                        if (writer) {
                            write(lock, commands);
                            LockSupport.parkNanos(writePauseNanos);
                        } else {
                            read(lock, commands, readHoldNanos, self);
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

    /**
     * On a loaded machine one process's readers may never have met the other's within the planned
     * run: it goes on (up to ten times as long) until they have, as the test asserts they can.
     */
    private static boolean readersOfBothProcessesMet(RedisCommands<String, String> commands) {
        return "2".equals(commands.get("rw:most-processes"));
    }

    private static void read(DistributedReadWriteLock lock, RedisCommands<String, String> commands, long holdNanos,
                             String self) {
        lock.readLock().lock();
        try {
            commands.eval(READER_IN, ScriptOutputType.INTEGER, READER_IN_KEYS, self);
            LockSupport.parkNanos(holdNanos);
            commands.hincrby("rw:readers-by", self, -1);
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
