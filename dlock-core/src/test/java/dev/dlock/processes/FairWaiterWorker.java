package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import java.time.Duration;

/**
 * A separate JVM that queues for a fair lock (asking for a long lease) and holds it until killed.
 * Args: redisUri lockName waiterTimeoutMillis leaseMillis. Prints "WAITING" before it asks and
 * "HOLDING <token>" once it holds the lock.
 */
public final class FairWaiterWorker {
    public static void main(String[] args) throws InterruptedException {
        LockClient client = LockClient.builder()
                .redisUri(args[0])
                .waiterTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .commandTimeout(Duration.ofMillis(200))
                .build();
        DistributedLock lock = client.getFairLock(args[1]);
        System.out.println("WAITING");
        lock.lock(Duration.ofMillis(Long.parseLong(args[3])));
        System.out.println("HOLDING " + lock.fencingToken());
        Thread.sleep(Long.MAX_VALUE);
    }
}
