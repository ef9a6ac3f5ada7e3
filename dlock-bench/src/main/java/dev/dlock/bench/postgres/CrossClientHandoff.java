package dev.dlock.bench.postgres;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * A handoff between two services: a holder in one client releases while a thread of another client
 * waits in {@code lock()}; the time from the release's start to the waiter's grant. This is every
 * handoff where each service runs one contender, and what a waiter pays when the lock leaves the
 * service holding it. The release comes a random 5–105 ms after the waiter started to wait, so a
 * contender that polls is met at a random point of its poll interval, as a real release would be.
 */
final class CrossClientHandoff {

    private static final int SAMPLES = 100;
    private static final long MIN_WAIT_MS = 5;
    private static final long MAX_EXTRA_WAIT_MS = 100;

    private CrossClientHandoff() {
    }

    static void measure(String name, PostgresContenders.Subject holderClient, PostgresContenders.Subject waiterClient)
            throws InterruptedException {
        Lock holder = holderClient.lock("cross-client");
        Lock waiter = waiterClient.lock("cross-client");
        long[] gaps = new long[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            holder.lock();
            AtomicLong granted = new AtomicLong();
            Thread waiting = new Thread(() -> {
                waiter.lock();
                granted.set(System.nanoTime());
                waiter.unlock();
            }, "cross-client-waiter");
            waiting.start();
            while (waiting.getState() != Thread.State.WAITING && waiting.getState() != Thread.State.TIMED_WAITING
                    && waiting.isAlive()) {
                Thread.onSpinWait();
            }
            // blocked may still mean its first attempt is under way: the least wait lets it queue
            TimeUnit.MILLISECONDS.sleep(MIN_WAIT_MS + ThreadLocalRandom.current().nextLong(MAX_EXTRA_WAIT_MS));
            long released = System.nanoTime();
            holder.unlock();
            waiting.join(TimeUnit.SECONDS.toMillis(30));
            gaps[i] = granted.get() - released;
        }
        Arrays.sort(gaps);
        System.out.printf(Locale.ROOT, "  handoff to another client's waiter %-17s p50 %8.0f µs  p90 %8.0f µs  (%d handoffs)%n",
                name, gaps[SAMPLES / 2] / 1e3, gaps[SAMPLES * 9 / 10] / 1e3, SAMPLES);
    }
}
