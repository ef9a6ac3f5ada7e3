package dev.dlock.bench.scenarios;

import dev.dlock.bench.Metric;
import dev.dlock.bench.Samples;
import dev.dlock.bench.contenders.BenchLock;
import dev.dlock.bench.contenders.Contender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * The multi-threaded scenarios that time acquire+release loops: plain threads driving one contender,
 * timed with System.nanoTime. The many-held scenario is {@link ManyHeldScenario}.
 */
public final class LoadScenarios {

    private static final int WARMUP = ContendedArena.WARMUP;
    private static final int MEASURE = ContendedArena.MEASURE;
    private static final int STOP = ContendedArena.STOP;

    private LoadScenarios() {
    }

    /** {@code threads} threads, a lock each, acquire+release pairs as fast as they go. */
    public static Map<Metric, Double> parallel(Contender contender, int threads, Duration warmup, Duration measure) {
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

    /**
     * {@code threads} threads on one lock with an empty critical section. Each acquisition records
     * its wait (lock call to return) and the handoff gap (previous holder's unlock call to this
     * return); a counter of threads inside the critical section detects exclusion violations.
     *
     * @param lockOf thread {@code i}'s handle on the one lock, asked once per thread before the
     *               threads start: from one contender (one client), or from several clients of the
     *               same library so that waiters of different clients race
     */
    public static Map<Metric, Double> contended(IntFunction<BenchLock> lockOf, int threads, Duration warmup,
                                         Duration measure) {
        return contended(lockOf, threads, 1, warmup, measure);
    }

    /**
     * {@link #contended(IntFunction, int, Duration, Duration)} on a lock that {@code holders} may
     * hold at once (a semaphore's permits): more inside than that is a violation.
     */
    public static Map<Metric, Double> contended(IntFunction<BenchLock> lockOf, int threads, int holders, Duration warmup,
                                         Duration measure) {
        ContendedArena arena = ContendedArena.inProcess();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<ContendedTally> tallies = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            ContendedTally tally = new ContendedTally(i);
            tallies.add(tally);
            workers.add(contendedWorker(lockOf.apply(i), holders, arena, tally, failure));
        }
        long measuredNanos = drive(workers, arena::setPhase, warmup, measure, failure);
        return ContendedTally.figures(tallies, measuredNanos, arena.violations());
    }

    /**
     * One thread of a contended run: lock, check exclusion (at most {@code holders} inside), record,
     * unlock, until the arena says stop; a failure is kept and stops the run.
     */
    static Thread contendedWorker(BenchLock lock, int holders, ContendedArena arena, ContendedTally tally,
                                  AtomicReference<Throwable> failure) {
        return new Thread(() -> {
            try {
                int current;
                while ((current = arena.phase()) == ContendedArena.STARTING) {
                    Thread.sleep(1);
                }
                while ((current = arena.phase()) != ContendedArena.STOP) {
                    long start = System.nanoTime();
                    lock.lock();
                    long acquired = System.nanoTime();
                    if (arena.enter() > holders) {
                        arena.violation();
                    }
                    if (current == ContendedArena.MEASURE) {
                        tally.acquired(start, acquired, arena.lastReleaseThread(), arena.lastReleaseNanos());
                    }
                    arena.leave();
                    arena.released(tally.thread(), System.nanoTime());
                    lock.unlock();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                arena.setPhase(ContendedArena.STOP);
            }
        }, "contended-" + tally.thread());
    }

    /** Where {@link #drive} announces the phases. */
    interface Phases {
        void set(int phase);
    }

    /** Starts the workers, warms up, measures, stops them; returns the measured nanoseconds. */
    private static long drive(List<Thread> workers, AtomicInteger phase, Duration warmup, Duration measure,
                              AtomicReference<Throwable> failure) {
        return drive(workers, phase::set, warmup, measure, failure);
    }

    private static long drive(List<Thread> workers, Phases phases, Duration warmup, Duration measure,
                              AtomicReference<Throwable> failure) {
        workers.forEach(Thread::start);
        sleep(warmup);
        long start = System.nanoTime();
        if (failure.get() == null) {
            phases.set(MEASURE);
        }
        sleep(measure);
        phases.set(STOP);
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
