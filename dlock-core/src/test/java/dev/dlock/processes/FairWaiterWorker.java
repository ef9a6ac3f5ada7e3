package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import dev.dlock.RedisStore;
import java.time.Duration;

/**
 * A separate JVM that queues for a fair lock (asking for a long lease) and holds it until killed.
 * Args: redisUris lockName waiterTimeoutMillis leaseMillis [reentrant], where redisUris is one
 * Redis URI or several separated by commas (Redlock over those masters); with "reentrant" it
 * waits for the reentrant lock of that name instead (queued too, on one Redis). Prints "WAITING"
 * before it asks and "HOLDING <token>" once it holds the lock.
 */
public final class FairWaiterWorker {
    public static void main(String[] args) throws InterruptedException {
        String[] uris = args[0].split(",");
        LockClientBuilder builder = uris.length > 1
                ? LockClient.builder().store(RedisStore.redlock(uris).nodeTimeout(Duration.ofMillis(200)))
                : LockClient.builder().store(RedisStore.standalone(uris[0]));
        builder.waiterTimeout(Duration.ofMillis(Long.parseLong(args[2]))).commandTimeout(Duration.ofMillis(200));
        LockClient client = connect(builder);
        DistributedLock lock = args.length > 4 && args[4].equals("reentrant") ? client.getLock(args[1])
                : client.getFairLock(args[1]);
        System.out.println("WAITING");
        lock.lock(Duration.ofMillis(Long.parseLong(args[3])));
        System.out.println("HOLDING " + lock.fencingToken());
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * The 200 ms command timeout also bounds the connection handshake, which a JVM that has just
     * started on a loaded machine can miss: try again for a while rather than never queue.
     */
    private static LockClient connect(LockClientBuilder builder) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return builder.build();
            } catch (LockBackendException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }
}
