package dev.dlock.bench.costs;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a Cluster master's failure does to the locks of the other shards: on a fresh six-node
 * cluster per setting of {@code cluster-require-full-coverage}, one thread takes and releases a
 * lock whose slot lives on a master that stays up, while another master is killed and its replica
 * promoted. Prints, per setting, the calls the healthy shard refused (CLUSTERDOWN) and when, from
 * the kill. The harness's {@code cluster-node-timeout} is 1 s; the window grows with it.
 *
 * <pre>
 * java -cp dlock-bench/target/dlock-bench.jar dev.dlock.bench.costs.ClusterFailoverWindow
 * </pre>
 */
public final class ClusterFailoverWindow {

    private ClusterFailoverWindow() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("| cluster-require-full-coverage | calls on a healthy shard | refused (CLUSTERDOWN) | "
                + "first refusal after the kill | last refusal after the kill | promotion seen after the kill |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (String fullCoverage : new String[] {"yes", "no"}) {
            run(fullCoverage);
        }
    }

    private static void run(String fullCoverage) throws Exception {
        try (RedisClusterGroup cluster = RedisClusterGroup.start()) {
            for (RedisServer node : cluster.nodes()) {
                node.command("CONFIG", "SET", "cluster-require-full-coverage", fullCoverage);
            }
            RedisServer victim = cluster.masters().get(0);
            String name = "healthy-0";
            for (int i = 1; cluster.masterOf("dlock:{" + name + "}") == victim; i++) {
                name = "healthy-" + i;
            }
            long[] calls = new long[1];
            long[] refused = new long[1];
            long[] firstRefusal = {-1};
            long[] lastRefusal = {-1};
            AtomicBoolean running = new AtomicBoolean(true);
            long[] killedAt = {Long.MAX_VALUE};
            try (LockClient client = LockClient.builder().store(RedisStore.cluster(cluster.uris().toArray(String[]::new)))
                    .commandTimeout(Duration.ofMillis(500)).build()) {
                DistributedLock lock = client.getLock(name);
                Thread worker = new Thread(() -> {
                    while (running.get()) {
                        try {
                            if (lock.tryLock(Duration.ZERO, Duration.ofSeconds(10))) {
                                lock.unlock();
                            }
                        } catch (LockBackendException e) {
                            if (String.valueOf(e.getMessage()).contains("CLUSTERDOWN")) {
                                long at = System.nanoTime();
                                refused[0]++;
                                firstRefusal[0] = firstRefusal[0] < 0 ? at : firstRefusal[0];
                                lastRefusal[0] = at;
                            }
                        } catch (InterruptedException e) {
                            return;
                        }
                        if (System.nanoTime() > killedAt[0]) {
                            calls[0]++;
                        }
                    }
                });
                worker.start();
                Thread.sleep(1000);
                killedAt[0] = System.nanoTime();
                cluster.killMasterAndAwaitPromotion(victim, Duration.ofSeconds(60));
                long promotedAt = System.nanoTime();
                Thread.sleep(2000);
                running.set(false);
                worker.join();
                System.out.printf(Locale.ROOT, "| %s | %d | %d | %s | %s | %d ms |%n", fullCoverage, calls[0], refused[0],
                        since(killedAt[0], firstRefusal[0]), since(killedAt[0], lastRefusal[0]),
                        TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt[0]));
            }
        }
    }

    private static String since(long start, long at) {
        return at < 0 ? "none" : TimeUnit.NANOSECONDS.toMillis(at - start) + " ms";
    }
}
