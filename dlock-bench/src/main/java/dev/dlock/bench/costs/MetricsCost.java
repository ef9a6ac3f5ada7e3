package dev.dlock.bench.costs;

import com.sun.management.ThreadMXBean;
import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.bench.Samples;
import dev.dlock.micrometer.DlockMetrics;
import dev.dlock.testing.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The cost of dlock's metrics: one thread's uncontended acquire+release pairs ({@code lock()},
 * {@code unlock()}) with no observer and with {@code DlockMetrics} over a {@code SimpleMeterRegistry},
 * in interleaved rounds on one redis-server, in one run. Prints p50 / p99 / p99.9 per mode, each
 * round's p50 (the spread), and the bytes allocated per pair by all of this JVM's threads (the
 * caller's and Lettuce's I/O threads). Kept apart from the main benchmark run and from the test
 * suite (no assertion on speed).
 *
 * <pre>
 * java -cp dlock-bench/target/dlock-bench.jar dev.dlock.bench.costs.MetricsCost [--pairs N] [--rounds N]
 * </pre>
 */
public final class MetricsCost {

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private MetricsCost() {
    }

    public static void main(String[] args) throws Exception {
        PairRounds plan = PairRounds.parse("MetricsCost", args, 20_000, 6);
        int pairs = plan.pairs();
        int rounds = plan.rounds();
        List<String> modes = List.of("metrics off", "DlockMetrics on");
        List<List<Samples>> samples = List.of(new ArrayList<>(), new ArrayList<>());
        long[] allocated = new long[2];
        double[][] roundMedians = new double[2][rounds];
        try (RedisServer server = RedisServer.start();
             LockClient plain = LockClient.builder().store(RedisStore.standalone(server.uri())).build();
             LockClient measured = LockClient.builder().store(RedisStore.standalone(server.uri()))
                     .observer(DlockMetrics.of(new SimpleMeterRegistry())).build()) {
            LockClient[] clients = {plain, measured};
            for (int mode = 0; mode < 2; mode++) {
                pairs(clients[mode].getLock("warm-up"), pairs / 2, new Samples());
            }
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < 2; i++) {
                    int mode = (round + i) % 2;
                    Samples roundSamples = new Samples();
                    long before = allocatedBytes();
                    pairs(clients[mode].getLock("pairs"), pairs, roundSamples);
                    allocated[mode] += allocatedBytes() - before;
                    roundMedians[mode][round] = Samples.percentileMicros(Samples.sorted(List.of(roundSamples)), 50);
                    samples.get(mode).add(roundSamples);
                }
            }
        }
        System.out.printf(Locale.ROOT, "1 thread, uncontended lock()+unlock() pairs on one redis-server on loopback, "
                + "%d interleaved rounds of %d pairs per mode%n", rounds, pairs);
        System.out.println("| mode | p50 µs | p99 µs | p99.9 µs | p50 per round µs | bytes allocated per pair |");
        System.out.println("|---|---:|---:|---:|---|---:|");
        for (int mode = 0; mode < 2; mode++) {
            long[] sorted = Samples.sorted(samples.get(mode));
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s | %d |%n", modes.get(mode),
                    Samples.percentileMicros(sorted, 50), Samples.percentileMicros(sorted, 99),
                    Samples.percentileMicros(sorted, 99.9),
                    Arrays.stream(roundMedians[mode]).mapToObj(p50 -> String.format(Locale.ROOT, "%.0f", p50)).toList(),
                    allocated[mode] / ((long) rounds * pairs));
        }
    }

    private static void pairs(DistributedLock lock, int count, Samples into) {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            lock.lock();
            lock.unlock();
            into.add(System.nanoTime() - start);
        }
    }

    /** Bytes allocated so far by every live thread of this JVM. */
    private static long allocatedBytes() {
        long total = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            total += Math.max(0, bytes);
        }
        return total;
    }
}
