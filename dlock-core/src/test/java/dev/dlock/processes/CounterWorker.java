package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM that increments a shared Redis counter the unsafe way (GET, pause, SET) under the
 * lock. Args: redisUri lockName counterKey increments. Prints "DONE" and exits 0.
 */
public final class CounterWorker {
    public static void main(String[] args) {
        String uri = args[0];
        int increments = Integer.parseInt(args[3]);
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = connect(uri); var connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            DistributedLock lock = client.getLock(args[1]);
            for (int i = 0; i < increments; i++) {
                lock.lock();
                try {
                    String value = commands.get(args[2]);
                    LockSupport.parkNanos(200_000);
                    commands.set(args[2], Long.toString((value == null ? 0 : Long.parseLong(value)) + 1));
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            redis.shutdown();
        }
        System.out.println("DONE");
    }

    /** Three JVMs starting at once on a loaded 2-core machine can miss a connect timeout: try again. */
    private static LockClient connect(String uri) {
        for (int attempt = 1; ; attempt++) {
            try {
                return LockClient.create(uri);
            } catch (LockBackendException e) {
                if (attempt == 3) {
                    throw e;
                }
                System.err.println("connect attempt " + attempt + " failed, retrying: " + e.getMessage());
            }
        }
    }
}
