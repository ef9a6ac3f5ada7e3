package dev.dlock.bench.costs;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.RedisStore;
import dev.dlock.bench.Samples;
import dev.dlock.bench.ServerCpu;
import dev.dlock.bench.contenders.BenchLock;
import dev.dlock.bench.contenders.Contender;
import dev.dlock.bench.contenders.RawContenders;
import dev.dlock.internal.redis.LuaScript;
import dev.dlock.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How much of dlock's Redlock latency over 5 masters is its Lua scripts' work inside Redis rather
 * than its client code: one thread's acquire+release pairs on 5 redis-servers on loopback, in
 * interleaved rounds on the same servers, of four modes: the raw quorum floor of the main
 * benchmark (SET NX PX and a compare-and-delete, each sent to all 5 nodes on raw Lettuce, done at
 * 3 replies); the fenced quorum floor of the main benchmark (the same with a fencing token by
 * dlock's rule, {@link RawContenders#fencedQuorumFloor}); dlock's own acquire.lua and release.lua with the same fan-out and quorum on raw
 * Lettuce, their keys and arguments as dlock's Redlock client sends them; and a dlock
 * {@link LockClient} over the 5 nodes ({@code lock(30 s)} / {@code unlock()}, no watchdog).
 * Prints p50 / p99, pairs per second and the redis-servers' CPU time per pair ({@link ServerCpu})
 * per mode; kept apart from the main benchmark run and from the test suite (no assertion on speed).
 *
 * <pre>
 * java -cp dlock-bench/target/dlock-bench.jar dev.dlock.bench.costs.RedlockScriptFloor [--pairs N] [--rounds N]
 * </pre>
 */
public final class RedlockScriptFloor {

    private static final int NODES = 5;
    private static final int WARM_UP_PAIRS = 2_000;
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** dlock's token floor lifetime (Settings.TOKEN_FLOOR_TTL) and its one floor key per server. */
    private static final String FLOOR_TTL_MS = "600000";
    private static final String FLOOR_KEY = LockClient.DEFAULT_KEY_PREFIX + "token-floor";

    private RedlockScriptFloor() {
    }

    /** One mode's acquire+release pair, done by the calling thread. */
    private interface Pair {
        void run();
    }

    public static void main(String[] args) throws Exception {
        PairRounds plan = PairRounds.parse("RedlockScriptFloor", args, 5_000, 5);
        int pairs = plan.pairs();
        int rounds = plan.rounds();
        List<RedisServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                servers.add(RedisServer.start());
            }
            List<String> uris = servers.stream().map(RedisServer::uri).toList();
            List<String> modes = List.of("raw quorum floor", "fenced quorum floor", "dlock's scripts, raw", "dlock Redlock");
            List<Samples> samples = List.of(new Samples(), new Samples(), new Samples(), new Samples());
            long[] wallNanos = new long[modes.size()];
            double[] serverCpuMicros = new double[modes.size()];
            try (Contender floor = RawContenders.quorumFloor(uris, Contender.Settings.DEFAULTS);
                 Contender fenced = RawContenders.fencedQuorumFloor(uris, Contender.Settings.DEFAULTS);
                 ScriptQuorum scripts = new ScriptQuorum(uris, "raw-pairs");
                 LockClient redlock = LockClient.builder().store(RedisStore.redlock(uris.toArray(String[]::new)))
                         .clientName("dlock-bench").build();
                 ServerCpu cpu = new ServerCpu(uris)) {
                BenchLock floorLock = floor.lock("floor-pairs");
                BenchLock fencedLock = fenced.lock("fenced-pairs");
                DistributedLock dlockLock = redlock.getLock("pairs");
                List<Pair> pairOf = List.of(
                        () -> {
                            floorLock.lock();
                            floorLock.unlock();
                        },
                        () -> {
                            fencedLock.lock();
                            fencedLock.unlock();
                        },
                        scripts::pair,
                        () -> {
                            dlockLock.lock(LEASE);
                            dlockLock.unlock();
                        });
                for (Pair pair : pairOf) {
                    pairs(pair, WARM_UP_PAIRS, new Samples());
                }
                for (int round = 0; round < rounds; round++) {
                    for (int i = 0; i < modes.size(); i++) {
                        int mode = (round + i) % modes.size();
                        double cpuBefore = cpu.micros();
                        long start = System.nanoTime();
                        pairs(pairOf.get(mode), pairs, samples.get(mode));
                        wallNanos[mode] += System.nanoTime() - start;
                        serverCpuMicros[mode] += cpu.micros() - cpuBefore;
                    }
                }
            }
            System.out.printf(Locale.ROOT, "redis-server %s, %d masters on loopback, 1 thread, %d interleaved rounds of %d "
                    + "acquire+release pairs per mode after %d%n", servers.get(0).command("INFO", "server").toString()
                    .lines().filter(line -> line.startsWith("redis_version:")).findFirst().orElse("?:?").split(":")[1].strip(),
                    NODES, rounds, pairs, WARM_UP_PAIRS);
            System.out.println("| mode | p50 µs | p99 µs | pairs/s | Redis CPU per pair µs |");
            System.out.println("|---|---:|---:|---:|---:|");
            long total = (long) rounds * pairs;
            for (int mode = 0; mode < modes.size(); mode++) {
                long[] sorted = Samples.sorted(List.of(samples.get(mode)));
                System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.1f |%n", modes.get(mode),
                        Samples.percentileMicros(sorted, 50), Samples.percentileMicros(sorted, 99),
                        total * 1e9 / wallNanos[mode], serverCpuMicros[mode] / total);
            }
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    private static void pairs(Pair pair, int count, Samples into) {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            pair.run();
            into.add(System.nanoTime() - start);
        }
    }

    /**
     * acquire.lua and release.lua sent as dlock's Redlock client sends them (Scripts, LockTarget,
     * TokenFloors), to every node at once on raw Lettuce, each done at a quorum of replies; none
     * of dlock's client code runs.
     */
    private static final class ScriptQuorum implements AutoCloseable {

        private final RawContenders.Quorum quorum;
        private final String[] keys;
        private final String channel;
        private long ownerCounter;

        ScriptQuorum(List<String> uris, String name) {
            quorum = new RawContenders.Quorum(uris, LuaScript.ACQUIRE.body(), LuaScript.RELEASE.body());
            String key = LockClient.DEFAULT_KEY_PREFIX + "{" + name + "}";
            keys = new String[]{key, key + ":queue", key + ":waiters", FLOOR_KEY};
            channel = key + ":released";
        }

        void pair() {
            // a fresh owner id per hold, shaped like dlock's (client id : thread : hold)
            String owner = "AbCdEfGhIjKl:1:" + Long.toString(++ownerCounter, 36);
            AtomicLong token = new AtomicLong();
            if (!quorum.agree(node -> node.<List<Object>>evalsha(quorum.sha(0), ScriptOutputType.MULTI, keys, owner,
                    Long.toString(LEASE.toMillis()), "0", FLOOR_TTL_MS, "", "10000", "0")
                    .thenApply(reply -> RawContenders.Quorum.granted(reply, token)))) {
                throw new IllegalStateException("'" + keys[0] + "' not granted by a quorum: nothing else should hold it");
            }
            String quorumToken = Long.toString(token.get());
            if (!quorum.agree(node -> node.<Long>evalsha(quorum.sha(1), ScriptOutputType.INTEGER, keys, owner, channel,
                    quorumToken, FLOOR_TTL_MS, "0").thenApply(left -> left == 0L))) {
                throw new IllegalMonitorStateException("'" + keys[0] + "' not released by a quorum");
            }
        }

        @Override
        public void close() {
            quorum.close();
        }
    }
}
