package dev.dlock.bench.costs;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.bench.Samples;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The latency cost of {@code replicaAcks(1, ...)}: one thread's acquire+release pairs on a master
 * with one replica on loopback, without and with the replica's acknowledgement of each grant,
 * in interleaved rounds on the same servers. Prints p50 / p99 / p99.9 per mode; kept apart from
 * the main benchmark run and from the test suite (no assertion on speed).
 *
 * <pre>
 * java -cp dlock-bench/target/dlock-bench.jar dev.dlock.bench.costs.ReplicaAcksCost [--pairs N] [--rounds N]
 * </pre>
 */
public final class ReplicaAcksCost {

    private static final Duration ACK_TIMEOUT = Duration.ofMillis(100);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private ReplicaAcksCost() {
    }

    public static void main(String[] args) throws Exception {
        PairRounds plan = PairRounds.parse("ReplicaAcksCost", args, 20_000, 5);
        int pairs = plan.pairs();
        int rounds = plan.rounds();
        try (RedisServer master = RedisServer.start("--repl-diskless-sync-delay", "0");
             RedisServer replica = RedisServer.start("--replicaof", master.host(), Integer.toString(master.port()))) {
            awaitInSync(replica);
            List<String> modes = List.of("no acks", "replicaAcks(1, 100 ms)");
            Samples[] samples = {new Samples(), new Samples()};
            try (LockClient plain = LockClient.builder().store(RedisStore.standalone(master.uri())).build();
                 LockClient acked = LockClient.builder().store(RedisStore.standalone(master.uri()).replicaAcks(1, ACK_TIMEOUT)).build()) {
                LockClient[] clients = {plain, acked};
                for (int mode = 0; mode < 2; mode++) {
                    pairs(clients[mode].getLock("warm-up"), pairs / 4, new Samples());
                }
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < 2; i++) {
                        int mode = (round + i) % 2;
                        pairs(clients[mode].getLock("pairs"), pairs, samples[mode]);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "redis-server %s, master + 1 replica on loopback, 1 thread, %d rounds of %d "
                    + "acquire+release pairs per mode%n", master.command("INFO", "server").toString()
                    .lines().filter(line -> line.startsWith("redis_version:")).findFirst().orElse("?:?").split(":")[1].strip(),
                    rounds, pairs);
            System.out.println("| mode | p50 µs | p99 µs | p99.9 µs |");
            System.out.println("|---|---:|---:|---:|");
            for (int mode = 0; mode < 2; mode++) {
                long[] sorted = Samples.sorted(List.of(samples[mode]));
                System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f |%n", modes.get(mode),
                        Samples.percentileMicros(sorted, 50), Samples.percentileMicros(sorted, 99),
                        Samples.percentileMicros(sorted, 99.9));
            }
        }
    }

    private static void pairs(DistributedLock lock, int count, Samples into) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            if (!lock.tryLock(Duration.ZERO, LEASE)) {
                throw new IllegalStateException("lock '" + lock.name() + "' busy: nothing else should hold it");
            }
            lock.unlock();
            into.add(System.nanoTime() - start);
        }
    }

    private static void awaitInSync(RedisServer replica) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!replica.command("INFO", "replication").toString().contains("master_link_status:up")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(replica + " not in sync with its master within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
