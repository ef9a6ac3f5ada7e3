package dev.dlock.processes;

import dev.dlock.DistributedSemaphore;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM whose threads each take a permit of a semaphore a number of times, and count
 * themselves in and out on a witness Redis (not the semaphore's): sem:inside (holders inside now),
 * sem:most (most ever inside at once), sem:violations (entries that found more inside than the
 * permits), sem:entries (hash: pid:thread → entries).
 * Args: lockUris semaphoreName permits threads iterations holdMillis witnessUri. lockUris is one
 * Redis URI or several separated by commas (Redlock over those masters).
 * Start barrier: pushes its pid to sem:ready on the witness, then waits (BLPOP sem:go) for the test's
 * go. Prints "DONE" and exits 0.
 */
public final class SemaphoreWorker {

    /** KEYS: sem:inside sem:violations sem:most sem:entries. ARGV: permits, pid:thread. */
    private static final String ENTER = """
            local inside = redis.call('INCR', KEYS[1])
            if inside > tonumber(ARGV[1]) then redis.call('INCR', KEYS[2]) end
            if inside > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], inside) end
            redis.call('HINCRBY', KEYS[4], ARGV[2], 1)
            return inside
            """;
    private static final String[] ENTER_KEYS = {"sem:inside", "sem:violations", "sem:most", "sem:entries"};

    public static void main(String[] args) throws Exception {
        int permits = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        long holdNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        String self = Long.toString(ProcessHandle.current().pid());
        RedisClient witness = RedisClient.create(args[6]);
        try (LockClient client = Workers.clientOn(args[0]).build();
             StatefulRedisConnection<String, String> connection = witness.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            DistributedSemaphore semaphore = client.getSemaphore(args[1], permits);
            Workers.awaitGo(commands, "sem");
            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String me = self + ":" + t;
                workers.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < iterations; i++) {
                            LockHandle permit = semaphore.acquire();
                            try {
                                commands.eval(ENTER, ScriptOutputType.INTEGER, ENTER_KEYS, Integer.toString(permits), me);
                                LockSupport.parkNanos(holdNanos);
                                commands.decr("sem:inside");
                            } finally {
                                permit.release();
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (Thread worker : workers) {
                worker.join();
            }
            if (!failures.isEmpty()) {
                failures.get(0).printStackTrace();
                System.exit(1);
            }
        } finally {
            witness.shutdown();
        }
        System.out.println("DONE");
    }
}
