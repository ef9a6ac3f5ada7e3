package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM that increments a shared Redis counter the unsafe way (GET, pause, SET) under the
 * lock. Args: redisUri lockName counterKey increments readyKey goKey.
 *
 * <p>Start barrier: once connected it pushes its pid to {@code readyKey}, then blocks in BLPOP on
 * {@code goKey} until the test pushes one token per worker, so that the workers' runs start
 * together instead of one JVM finishing before the next has even loaded its classes.
 *
 * <p>Prints {@code DONE first=<f> last=<l> contended=<c>} and exits 0: {@code f} and {@code l} are
 * the first and last counter values this worker wrote (its place in the global order of
 * increments), {@code c} how many of its acquisitions found the lock held by someone else.
 */
public final class CounterWorker {

    private static final long BARRIER_TIMEOUT_SECONDS = 60;

    public static void main(String[] args) {
        String uri = args[0];
        int increments = Integer.parseInt(args[3]);
        String readyKey = args[4];
        String goKey = args[5];
        RedisClient redis = RedisClient.create(uri);
        long first = -1;
        long last = -1;
        int contended = 0;
        try (LockClient client = connect(uri); var connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            DistributedLock lock = client.getLock(args[1]);
            commands.rpush(readyKey, Long.toString(ProcessHandle.current().pid()));
            KeyValue<String, String> go = commands.blpop(BARRIER_TIMEOUT_SECONDS, goKey);
            if (go == null) {
                System.err.println("no go signal within " + BARRIER_TIMEOUT_SECONDS + " s");
                System.exit(2);
            }
            for (int i = 0; i < increments; i++) {
                // tryLock first only to count contention; lock() is the path under test
                if (!lock.tryLock()) {
                    contended++;
                    lock.lock();
                }
                try {
                    String value = commands.get(args[2]);
                    LockSupport.parkNanos(200_000);
                    long next = (value == null ? 0 : Long.parseLong(value)) + 1;
                    commands.set(args[2], Long.toString(next));
                    if (first < 0) {
                        first = next;
                    }
                    last = next;
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            redis.shutdown();
        }
        System.out.println("DONE first=" + first + " last=" + last + " contended=" + contended);
    }

    /** Three JVMs starting at once on a loaded 2-core machine can miss a connect timeout: try again. */
    private static LockClient connect(String uri) {
        for (int attempt = 1; ; attempt++) {
            try {
                return LockClient.create(RedisStore.standalone(uri));
            } catch (LockBackendException e) {
                if (attempt == 3) {
                    throw e;
                }
                System.err.println("connect attempt " + attempt + " failed, retrying: " + e.getMessage());
            }
        }
    }
}
