package dev.dlock.processes;

import dev.dlock.LockClient;
import java.time.Duration;

/**
 * A separate JVM that takes a lock with the watchdog and holds it until killed.
 * Args: redisUri lockName watchdogLeaseMillis. Prints "HOLDING <token>" once it holds the lock.
 */
public final class HoldingWorker {
    public static void main(String[] args) throws InterruptedException {
        LockClient client = LockClient.builder()
                .redisUri(args[0])
                .defaultLease(Duration.ofMillis(Long.parseLong(args[2])))
                .commandTimeout(Duration.ofMillis(Long.parseLong(args[2]) / 4))
                .build();
        var lock = client.getLock(args[1]);
        lock.lock();
        System.out.println("HOLDING " + lock.fencingToken());
        Thread.sleep(Long.MAX_VALUE);
    }
}
