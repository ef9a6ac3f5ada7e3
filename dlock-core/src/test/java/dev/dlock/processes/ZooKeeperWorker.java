package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.ZooKeeperStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM that takes locks on ZooKeeper. Args: connectString sessionMs redisUri prefix mode ...;
 * the fenced resource is the witness Redis's {@code <prefix>:counter} guarded by {@code <prefix>:fence}.
 *
 * <ul>
 *   <li>{@code count lockName threads increments}: after the start barrier each thread increments the
 *       fenced counter the unsafe way (read, pause, write) under the lock. Prints
 *       {@code DONE refused=<r>}.</li>
 *   <li>{@code hold lockName}: takes the lock, prints {@code HELD <token>} and waits to be killed.</li>
 *   <li>{@code stale lockName}: takes the lock, prints {@code HELD <token>}, waits for
 *       {@code <prefix>:go}, then prints {@code STILL HELD} or {@code TOLD LOST} as the lock says, and
 *       writes its token to the fenced resource anyway: {@code WRITE accepted} or {@code WRITE refused}.</li>
 *   <li>{@code partitioned lockName}: takes the lock, prints {@code HELD <token>} and waits to be killed; it
 *       uses no witness (run in a network namespace, it reaches only the ensemble). The client's listener
 *       prints {@code LISTENER LOST <epoch ms>} when the hold is lost.</li>
 * </ul>
 */
public final class ZooKeeperWorker {

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        long sessionMs = Long.parseLong(args[1]);
        String prefix = args[3];
        String mode = args[4];
        RedisClient redis = RedisClient.create(args[2]);
        try (LockClient client = LockClient.builder().store(ZooKeeperStore.connect(connect).sessionTimeout(Duration.ofMillis(sessionMs)))
                .defaultLease(Duration.ofMillis(sessionMs)).commandTimeout(Duration.ofMillis(Math.min(2000, sessionMs / 4)))
                .listener(lost -> System.out.println("LISTENER LOST " + System.currentTimeMillis()))
                .build(); StatefulRedisConnection<String, String> witness = mode.equals("partitioned") ? null : redis.connect()) {
            DistributedLock lock = client.getLock(args[5]);
            switch (mode) {
                case "count" -> count(client, redis, witness.sync(), prefix, args[5], Integer.parseInt(args[6]),
                        Integer.parseInt(args[7]));
                case "hold", "partitioned" -> {
                    lock.lock();
                    System.out.println("HELD " + lock.fencingToken());
                    Thread.sleep(Long.MAX_VALUE);
                }
                case "stale" -> {
                    lock.lock();
                    long token = lock.fencingToken();
                    System.out.println("HELD " + token);
                    if (witness.sync().blpop(120, prefix + ":go") == null) {
                        throw new IllegalStateException("no go");
                    }
                    System.out.println(lock.isHeldByCurrentThread() ? "STILL HELD" : "TOLD LOST");
                    System.out.println(writeFenced(witness.sync(), prefix, token, false) ? "WRITE accepted" : "WRITE refused");
                }
                default -> throw new IllegalArgumentException(mode);
            }
        } finally {
            redis.shutdown();
        }
        System.exit(0);
    }

    private static void count(LockClient client, RedisClient redis, RedisCommands<String, String> commands, String prefix,
                              String name, int threads, int increments) throws Exception {
        Workers.awaitGo(commands, prefix);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                int refused = 0;
                DistributedLock lock = client.getLock(name);
                try (StatefulRedisConnection<String, String> own = redis.connect()) {
                    for (int i = 0; i < increments; i++) {
                        lock.lock();
                        try {
                            if (!writeFenced(own.sync(), prefix, lock.fencingToken(), true)) {
                                refused++;
                            }
                        } finally {
                            lock.unlock();
                        }
                    }
                }
                return refused;
            }));
        }
        int refused = 0;
        for (Future<Integer> result : results) {
            refused += result.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        System.out.println("DONE refused=" + refused);
    }

    /**
     * The fenced resource: writes only while the token is above the highest one it has seen (checked
     * and written in one MULTI under WATCH). With {@code increment}, reads the counter, pauses, and
     * writes it + 1 (the unsafe way that loses updates unless the lock excludes).
     */
    public static boolean writeFenced(RedisCommands<String, String> commands, String prefix, long token, boolean increment) {
        commands.watch(prefix + ":fence");
        String fence = commands.get(prefix + ":fence");
        if (fence != null && Long.parseLong(fence) >= token) {
            commands.unwatch();
            return false;
        }
        String value = commands.get(prefix + ":counter");
        if (increment) {
            LockSupport.parkNanos(200_000);
        }
        commands.multi();
        commands.set(prefix + ":counter", Long.toString((value == null ? 0 : Long.parseLong(value)) + (increment ? 1 : 0)));
        commands.set(prefix + ":fence", Long.toString(token));
        TransactionResult result = commands.exec();
        return !result.wasDiscarded();
    }
}
