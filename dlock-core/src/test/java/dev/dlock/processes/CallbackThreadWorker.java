package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.RedisStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs on a JDK 21+: a waiter's callback on a lock of the default client runs on a virtual thread
 * of dlock's default callback executor. Compiled for Java 17, so {@code isVirtual} is looked up
 * reflectively. Args: redisUri lockName. Prints "CALLBACK VIRTUAL <true|false> NAME <thread name>"
 * and exits 0.
 */
public final class CallbackThreadWorker {
    public static void main(String[] args) throws Exception {
        try (LockClient client = LockClient.create(RedisStore.standalone(args[0]))) {
            DistributedLock lock = client.getLock(args[1]);
            LockHandle holder = lock.acquireAsync().get(30, TimeUnit.SECONDS);
            CompletableFuture<Thread> ranOn = lock.acquireAsync().thenApply(handle -> {
                handle.release();
                return Thread.currentThread();
            });
            holder.release();
            Thread thread = ranOn.get(30, TimeUnit.SECONDS);
            System.out.println("CALLBACK VIRTUAL " + Thread.class.getMethod("isVirtual").invoke(thread)
                    + " NAME " + thread.getName());
        }
    }
}
