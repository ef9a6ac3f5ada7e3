package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.LockKind;
import dev.dlock.LockObserver;
import dev.dlock.RedisStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A separate JVM that checks that Micrometer is nowhere on its class path, then takes and releases
 * a lock with an observer, slow-lock thresholds and call-site capture set. Args: redisUri lockName.
 * Prints "NO MICROMETER" and "OBSERVED <holds started> <holds ended>"; exits 0 when all went as
 * expected, 2 when a Micrometer class is loadable, 3 when the observer missed the hold.
 */
public final class ObservedWorker {
    public static void main(String[] args) {
        for (String name : new String[] {"io.micrometer.core.instrument.MeterRegistry",
                "io.micrometer.observation.ObservationRegistry"}) {
            try {
                Class.forName(name);
                System.out.println("MICROMETER LOADABLE: " + name);
                System.exit(2);
            } catch (ClassNotFoundException expected) {
                // what this process is for
            }
        }
        if (ClassLoader.getSystemResource("io/micrometer") != null) {
            System.out.println("MICROMETER PACKAGE FOUND: " + ClassLoader.getSystemResource("io/micrometer"));
            System.exit(2);
        }
        System.out.println("NO MICROMETER");
        AtomicInteger started = new AtomicInteger();
        AtomicInteger ended = new AtomicInteger();
        LockObserver counting = new LockObserver() {
            @Override
            public void holdStarted(LockKind kind, String lockName) {
                started.incrementAndGet();
            }

            @Override
            public void holdEnded(LockKind kind, String lockName, long heldNanos, HoldEnding ending) {
                ended.incrementAndGet();
            }
        };
        try (LockClient client = LockClient.builder().store(RedisStore.standalone(args[0])).observer(counting)
                .slowHoldThreshold(Duration.ofSeconds(10)).slowWaitThreshold(Duration.ofSeconds(10))
                .captureAcquireSite(true).build()) {
            DistributedLock lock = client.getLock(args[1]);
            lock.lock();
            lock.unlock();
        }
        System.out.println("OBSERVED " + started.get() + " " + ended.get());
        System.exit(started.get() == 1 && ended.get() == 1 ? 0 : 3);
    }
}
