package dev.dlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * The multi-threaded scenarios that time acquire+release loops: plain threads driving one contender,
 * timed with System.nanoTime. The many-held scenario is {@link ManyHeldScenario}.
 */
final class LoadScenarios {

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    private LoadScenarios() {
    }

    /** {@code threads} threads, a lock each, acquire+release pairs as fast as they go. */
    static Map<Metric, Double> parallel(Contender contender, int threads, Duration warmup, Duration measure) {
        AtomicInteger phase = new AtomicInteger(WARMUP);
        List<Samples> latencies = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Samples samples = new Samples();
            latencies.add(samples);
            BenchLock lock = contender.lock("bench:parallel:" + i);
            workers.add(new Thread(() -> {
                try {
                    int current;
                    while ((current = phase.get()) != STOP) {
                        long start = System.nanoTime();
                        lock.lock();
                        lock.unlock();
                        long end = System.nanoTime();
                        if (current == MEASURE) {
                            samples.add(end - start);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    phase.set(STOP);
                }
            }, "parallel-" + i));
        }
        long measuredNanos = drive(workers, phase, warmup, measure, failure);
        long[] sorted = Samples.sorted(latencies);
        Map<Metric, Double> result = new EnumMap<>(Metric.class);
        result.put(Metric.OPS, sorted.length * 1e9 / measuredNanos);
        result.put(Metric.P50, Samples.percentileMicros(sorted, 50));
        result.put(Metric.P99, Samples.percentileMicros(sorted, 99));
        return result;
    }

    /** The previous holder's thread and when it called unlock. */
    private record Release(int thread, long nanos) {
    }

    /**
     * {@code threads} threads on one lock with an empty critical section. Each acquisition records
     * its wait (lock call to return) and the handoff gap (previous holder's unlock call to this
     * return); an atomic counter of threads inside the critical section detects exclusion
     * violations.
     *
     * @param lockOf thread {@code i}'s handle on the one lock, asked once per thread before the
     *               threads start: from one contender (one client), or from several clients of the
     *               same library so that waiters of different clients race
     */
    static Map<Metric, Double> contended(IntFunction<BenchLock> lockOf, int threads, Duration warmup,
                                         Duration measure) {
        return contended(lockOf, threads, 1, warmup, measure);
    }

    /**
     * {@link #contended(IntFunction, int, Duration, Duration)} on a lock that {@code holders} may
     * hold at once (a semaphore's permits): more inside than that is a violation.
     */
    static Map<Metric, Double> contended(IntFunction<BenchLock> lockOf, int threads, int holders, Duration warmup,
                                         Duration measure) {
        AtomicInteger phase = new AtomicInteger(WARMUP);
        AtomicInteger inside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicReference<Release> lastRelease = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Samples> waits = new ArrayList<>();
        List<Samples> gaps = new ArrayList<>();
        long[] acquisitions = new long[threads];
        long[] sameThread = new long[threads];
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int me = i;
            Samples myWaits = new Samples();
            Samples myGaps = new Samples();
            waits.add(myWaits);
            gaps.add(myGaps);
            BenchLock lock = lockOf.apply(i);
            workers.add(new Thread(() -> {
                try {
                    int current;
                    while ((current = phase.get()) != STOP) {
                        long start = System.nanoTime();
                        lock.lock();
                        long acquired = System.nanoTime();
                        if (inside.incrementAndGet() > holders) {
                            violations.incrementAndGet();
                        }
                        Release previous = lastRelease.get();
                        if (current == MEASURE) {
                            acquisitions[me]++;
                            myWaits.add(acquired - start);
                            if (previous != null) {
                                myGaps.add(acquired - previous.nanos());
                                if (previous.thread() == me) {
                                    sameThread[me]++;
                                }
                            }
                        }
                        inside.decrementAndGet();
                        lastRelease.set(new Release(me, System.nanoTime()));
                        lock.unlock();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    phase.set(STOP);
                }
            }, "contended-" + i));
        }
        long measuredNanos = drive(workers, phase, warmup, measure, failure);
        long total = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        double sumSquares = 0;
        long same = 0;
        for (int i = 0; i < threads; i++) {
            total += acquisitions[i];
            min = Math.min(min, acquisitions[i]);
            max = Math.max(max, acquisitions[i]);
            sumSquares += (double) acquisitions[i] * acquisitions[i];
            same += sameThread[i];
        }
        long[] sortedWaits = Samples.sorted(waits);
        long[] sortedGaps = Samples.sorted(gaps);
        Map<Metric, Double> result = new EnumMap<>(Metric.class);
        result.put(Metric.ACQUISITIONS, total * 1e9 / measuredNanos);
        result.put(Metric.THREAD_MIN, (double) min);
        result.put(Metric.THREAD_MAX, (double) max);
        result.put(Metric.JAIN, sumSquares == 0 ? 0 : (double) total * total / (threads * sumSquares));
        result.put(Metric.WAIT_P50, Samples.percentileMicros(sortedWaits, 50));
        result.put(Metric.WAIT_P99, Samples.percentileMicros(sortedWaits, 99));
        result.put(Metric.HANDOFF_P50, Samples.percentileMicros(sortedGaps, 50));
        result.put(Metric.HANDOFF_P99, Samples.percentileMicros(sortedGaps, 99));
        result.put(Metric.SAME_THREAD, sortedGaps.length == 0 ? 0 : 100.0 * same / sortedGaps.length);
        result.put(Metric.VIOLATIONS, (double) violations.get());
        return result;
    }

    /** Starts the workers, warms up, measures, stops them; returns the measured nanoseconds. */
    private static long drive(List<Thread> workers, AtomicInteger phase, Duration warmup, Duration measure,
                              AtomicReference<Throwable> failure) {
        workers.forEach(Thread::start);
        sleep(warmup);
        long start = System.nanoTime();
        phase.compareAndSet(WARMUP, MEASURE);
        sleep(measure);
        phase.set(STOP);
        long measured = System.nanoTime() - start;
        for (Thread worker : workers) {
            try {
                worker.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping the workers", e);
            }
            if (worker.isAlive()) {
                throw new IllegalStateException(worker.getName() + " did not stop within 60 s (stuck in lock()?)");
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a worker failed: " + failure.get(), failure.get());
        }
        return measured;
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
