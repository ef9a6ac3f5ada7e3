package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM that takes a multi-lock over some names, in the order it is given them, again and
 * again, and counts itself in and out of each name on a witness Redis: multi:inside:<name> (holders
 * of that name inside now), multi:violations (entries that found someone else inside a name),
 * multi:entries.
 * Args: redisUri names (comma-separated, in the order asked for) iterations witnessUri.
 * Start barrier: pushes its pid to multi:ready on the witness, then waits (BLPOP multi:go) for the
 * test's go. Prints "DONE" and exits 0.
 */
public final class MultiLockWorker {

    /** KEYS: multi:inside:<name>... then multi:violations. */
    private static final String ENTER = """
            for i = 1, #KEYS - 1 do
              if redis.call('INCR', KEYS[i]) ~= 1 then redis.call('INCR', KEYS[#KEYS]) end
            end
            return 1
            """;
    private static final String LEAVE = """
            for i = 1, #KEYS do redis.call('DECR', KEYS[i]) end
            return 1
            """;

    public static void main(String[] args) {
        String[] names = args[1].split(",");
        int iterations = Integer.parseInt(args[2]);
        String[] inside = new String[names.length];
        String[] enterKeys = new String[names.length + 1];
        for (int i = 0; i < names.length; i++) {
            inside[i] = "multi:inside:" + names[i];
            enterKeys[i] = inside[i];
        }
        enterKeys[names.length] = "multi:violations";
        RedisClient witness = RedisClient.create(args[3]);
        try (LockClient client = LockClient.create(RedisStore.standalone(args[0]));
             StatefulRedisConnection<String, String> connection = witness.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            DistributedLock lock = client.getMultiLock(names);
            Workers.awaitGo(commands, "multi");
            for (int i = 0; i < iterations; i++) {
                lock.lock();
                try {
                    commands.eval(ENTER, ScriptOutputType.INTEGER, enterKeys);
                    LockSupport.parkNanos(500_000);
                    commands.eval(LEAVE, ScriptOutputType.INTEGER, inside);
                    commands.incr("multi:entries");
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            witness.shutdown();
        }
        System.out.println("DONE");
    }
}
