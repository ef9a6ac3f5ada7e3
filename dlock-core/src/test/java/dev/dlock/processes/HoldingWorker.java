package dev.dlock.processes;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM that takes a lock with the watchdog and holds it until killed.
 * Args: redisUri lockName watchdogLeaseMillis. Prints "HOLDING <token>" once it holds the lock.
 */
public final class HoldingWorker {
    public static void main(String[] args) throws InterruptedException {
        LockClient client = connect(args[0], Long.parseLong(args[2]));
        var lock = client.getLock(args[1]);
        lock.lock();
        System.out.println("HOLDING " + lock.fencingToken());
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * The command timeout (a quarter of the lease) also bounds the connect, which a loaded machine can
     * exceed: the connect is tried again until a deadline, as the test waits for HOLDING up to a minute.
     */
    private static LockClient connect(String redisUri, long leaseMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        while (true) {
            try {
                return LockClient.builder()
                        .store(RedisStore.standalone(redisUri))
                        .defaultLease(Duration.ofMillis(leaseMs))
                        .commandTimeout(Duration.ofMillis(leaseMs / 4))
                        .build();
            } catch (LockBackendException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                System.err.println("connect failed, trying again: " + e.getMessage());
                Thread.sleep(100);
            }
        }
    }
}
