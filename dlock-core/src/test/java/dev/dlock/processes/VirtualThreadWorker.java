package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs on a JDK 21+: 1,000 virtual threads contend on one lock, each holding it once. Compiled
 * for Java 17, so the virtual-thread executor is looked up reflectively. Args: redisUri lockName.
 * Prints "HOLDS <n> OVERLAPS <m> VIRTUAL <true|false>" and exits 0.
 */
public final class VirtualThreadWorker {
    public static void main(String[] args) throws Exception {
        int threads = 1000;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger holds = new AtomicInteger();
        AtomicInteger virtualHolders = new AtomicInteger();
        try (LockClient client = LockClient.create(RedisStore.standalone(args[0]))) {
            DistributedLock lock = client.getLock(args[1]);
            ExecutorService executor = (ExecutorService) Executors.class
                    .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                done.add(executor.submit(() -> {
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        if ((Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread())) {
                            virtualHolders.incrementAndGet();
                        }
                        holds.incrementAndGet();
                        Thread.yield();
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            executor.shutdown();
        }
        System.out.println("HOLDS " + holds.get() + " OVERLAPS " + overlaps.get() + " VIRTUAL "
                + (virtualHolders.get() == threads));
    }
}
