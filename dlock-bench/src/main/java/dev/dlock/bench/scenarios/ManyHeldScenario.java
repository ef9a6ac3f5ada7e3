package dev.dlock.bench.scenarios;

import dev.dlock.bench.Metric;
import dev.dlock.bench.contenders.Contender;
import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The many-held scenario: many locks held at once by one client, and what holding them costs. */
public final class ManyHeldScenario {

    private ManyHeldScenario() {
    }

    /**
     * Holds {@code count} locks at once from {@code threads} threads, then keeps them held for
     * {@code hold} while the watchdog renews them, sampling the lease left on random held keys.
     * Memory figures are differences against the state just before the first acquire, with the
     * contender already connected; the harness keeps no lock objects while they are held (names
     * are rebuilt from their index), so the heap figure is the library's own bookkeeping.
     */
    public static Map<Metric, Double> run(Contender contender, RedisServer server, int count, int threads,
                                        Duration hold) {
        RedisClient sampler = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = sampler.connect()) {
            long heapBefore = usedHeapAfterGc();
            long redisBefore = usedMemory(server);
            CyclicBarrier barrier = new CyclicBarrier(threads + 1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                workers.add(new Thread(() -> {
                    try {
                        barrier.await();
                        for (int i = first; i < count; i += threads) {
                            contender.lock(heldName(i)).lock();
                        }
                        barrier.await();
                        barrier.await();
                        for (int i = first; i < count; i += threads) {
                            contender.lock(heldName(i)).unlock();
                        }
                        barrier.await();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        barrier.reset();
                    }
                }, "many-held-" + t));
            }
            workers.forEach(Thread::start);
            try {
                barrier.await();
                long start = System.nanoTime();
                barrier.await();
                long acquireNanos = System.nanoTime() - start;
                long heapHeld = usedHeapAfterGc();
                long redisHeld = usedMemory(server);
                long keysHeld = heldKeys(server, contender);
                long minPttl = sampleLeases(contender, connection.async(), count, hold);
                long keysAfter = heldKeys(server, contender);
                barrier.await();
                barrier.await();
                Map<Metric, Double> result = new EnumMap<>(Metric.class);
                result.put(Metric.ACQUIRE_RATE, count * 1e9 / acquireNanos);
                result.put(Metric.REDIS_BYTES, (double) (redisHeld - redisBefore) / count);
                result.put(Metric.HEAP_BYTES, (double) (heapHeld - heapBefore) / count);
                result.put(Metric.MIN_LEASE_LEFT, (double) minPttl);
                result.put(Metric.LOST, (double) (count - Math.min(keysHeld, keysAfter)));
                return result;
            } catch (Exception e) {
                Throwable cause = failure.get() != null ? failure.get() : e;
                throw new IllegalStateException("many-held failed: " + cause, cause);
            }
        } finally {
            sampler.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    static String heldName(int index) {
        return "bench:held:" + index;
    }

    /** The lowest PTTL seen over {@code hold}, sampling 500 random held keys every 100 ms. */
    private static long sampleLeases(Contender contender, RedisAsyncCommands<String, String> redis, int count,
                                     Duration hold) throws Exception {
        long min = Long.MAX_VALUE;
        long end = System.nanoTime() + hold.toNanos();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (System.nanoTime() < end) {
            List<RedisFuture<Long>> replies = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                replies.add(redis.pttl(contender.keyOf(heldName(random.nextInt(count)))));
            }
            for (RedisFuture<Long> reply : replies) {
                min = Math.min(min, reply.get(10, TimeUnit.SECONDS));
            }
            LoadScenarios.sleep(Duration.ofMillis(100));
        }
        return min;
    }

    static long usedMemory(RedisServer server) {
        String info = String.valueOf(server.command("INFO", "memory"));
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory line: " + info);
    }

    /**
     * How many keys of held locks the server has: the keys of the contender's locks named
     * {@link #heldName}, not the library's other keys (dlock's token floor).
     */
    static long heldKeys(RedisServer server, Contender contender) {
        String pattern = contender.keyOf(heldName(0)).replace("0", "*").replace("{", "\\{").replace("}", "\\}");
        return ((Number) server.command("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", pattern)).longValue();
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            LoadScenarios.sleep(Duration.ofMillis(100));
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
