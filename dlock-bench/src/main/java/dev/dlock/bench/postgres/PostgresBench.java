package dev.dlock.bench.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.testing.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * dlock on PostgreSQL side by side with Spring Integration's {@code JdbcLockRegistry} (its own
 * schema, from its jar) and a raw floor (one {@code INSERT ... ON CONFLICT DO NOTHING} and one
 * {@code DELETE ... WHERE owner = ?} per pair on one connection), on one PostgreSQL server started
 * by the run; HikariCP pools of 20 connections (one per client where several clients contend, as
 * separate services would have). Also: what 100,000 held locks cost in the
 * table, and the dead tuples that lock churn leaves with autovacuum on. After the contended dlock run it
 * prints the dlock functions the server ran per acquisition (its round trips); after each contended run,
 * the handoff from a holder in one client to a waiter in another ({@link CrossClientHandoff}). First it measures
 * what a NOTIFY takes to reach a listening thread, the floor under a handoff to another client.
 *
 * <pre>java -cp dlock-bench.jar dev.dlock.bench.postgres.PostgresBench [--rounds N] [--held LOCKS] [--churn PAIRS] [--autovacuum-tuned]</pre>
 *
 * <p>{@code --autovacuum-tuned}: autovacuum wakes every second and vacuums dlock's tables after
 * 1,000 dead rows without pauses, as deployments.md advises for hot locks (default: PostgreSQL's).
 */
public final class PostgresBench {

    private static final int THREADS = 16;
    /** Clients (dlock clients, lock registries) the contended threads are spread over, as in separate services. */
    private static final int CLIENTS = 4;
    private static final Duration CONTENDED_RUN = Duration.ofSeconds(4);
    private static final int UNCONTENDED_PAIRS = 2_000;

    private PostgresBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = intArg(args, "--rounds", 3);
        int churnPairs = intArg(args, "--churn", 1_000_000);
        int held = intArg(args, "--held", 100_000);
        boolean tuned = Arrays.asList(args).contains("--autovacuum-tuned");
        try (PostgresServer server = tuned ? PostgresServer.start("autovacuum=on", "track_functions=all", "autovacuum_naptime=1")
                : PostgresServer.start("autovacuum=on", "track_functions=all");
                HikariDataSource pool = pool(server.jdbcUrl())) {
            System.out.println("PostgreSQL: " + server.sql("SHOW server_version") + ", loopback, a server of the run's own"
                    + " (fsync off); HikariCP pool of 20; " + Runtime.getRuntime().availableProcessors() + " cores");
            NotifyLatency.measure(server.jdbcUrl());
            PostgresContenders.createJdbcLockRegistrySchema(pool);
            PostgresContenders.createRawSchema(pool);
            if (tuned) {
                LockClient.builder().postgres(pool).build().close(); // creates dlock's tables
                for (String table : List.of("dlock_hold", "dlock_waiter")) {
                    server.sql("ALTER TABLE " + table + " SET (autovacuum_vacuum_scale_factor = 0, "
                            + "autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0)");
                }
                System.out.println("autovacuum tuned: naptime 1 s; dlock_hold and dlock_waiter vacuumed after 1,000 dead rows");
            }
            List<String> names = List.of("raw floor", "JdbcLockRegistry", "dlock");
            List<Function<DataSource, PostgresContenders.Subject>> subjects = List.of(PostgresContenders::raw,
                    PostgresContenders::jdbcLockRegistry,
                    PostgresBench::dlock);
            for (int round = 1; round <= rounds; round++) {
                System.out.println("\nround " + round);
                for (int i = 0; i < names.size(); i++) {
                    // rotate the order each round
                    int k = (i + round) % names.size();
                    try (PostgresContenders.Subject subject = subjects.get(k).apply(pool)) {
                        uncontended(names.get(k), subject);
                    }
                    if (k != 0) {
                        // each client as a service of its own: its own pool, as it would have
                        // the backends of the shared pool report what they ran as they exit: counted before the reset
                        pool.getHikariPoolMXBean().softEvictConnections();
                        TimeUnit.MILLISECONDS.sleep(500);
                        server.sql("SELECT pg_stat_reset()");
                        long acquisitions = 0;
                        List<PostgresContenders.Subject> clients = new ArrayList<>();
                        List<HikariDataSource> pools = new ArrayList<>();
                        for (int c = 0; c < CLIENTS; c++) {
                            pools.add(pool(server.jdbcUrl()));
                            clients.add(subjects.get(k).apply(pools.get(c)));
                        }
                        try {
                            acquisitions = contended(names.get(k), clients);
                        } finally {
                            clients.forEach(PostgresContenders.Subject::close);
                            pools.forEach(HikariDataSource::close);
                        }
                        if (names.get(k).equals("dlock")) {
                            System.out.println("    dlock functions called per acquisition: "
                                    + functionCallsPer(server, acquisitions));
                        }
                        try (HikariDataSource holderPool = pool(server.jdbcUrl());
                                HikariDataSource waiterPool = pool(server.jdbcUrl());
                                PostgresContenders.Subject holder = subjects.get(k).apply(holderPool);
                                PostgresContenders.Subject waiter = subjects.get(k).apply(waiterPool)) {
                            CrossClientHandoff.measure(names.get(k), holder, waiter);
                        }
                    }
                }
            }
            if (held > 0) {
                heldLocks(server, pool, held);
            }
            if (churnPairs > 0) {
                churn(server, pool, churnPairs);
            }
        }
    }

    private static void uncontended(String name, PostgresContenders.Subject subject) {
        Lock lock = subject.lock("uncontended");
        for (int i = 0; i < 500; i++) {
            lock.lock();
            lock.unlock();
        }
        long[] pairs = new long[UNCONTENDED_PAIRS];
        long start = System.nanoTime();
        for (int i = 0; i < pairs.length; i++) {
            long t0 = System.nanoTime();
            lock.lock();
            lock.unlock();
            pairs[i] = System.nanoTime() - t0;
        }
        long total = System.nanoTime() - start;
        Arrays.sort(pairs);
        System.out.printf(Locale.ROOT, "  uncontended %-17s pair p50 %6.0f µs  p99 %6.0f µs  %7.0f pairs/s%n", name,
                pairs[pairs.length / 2] / 1e3, pairs[pairs.length * 99 / 100] / 1e3, pairs.length / (total / 1e9));
    }

    /**
     * 16 threads on one name, spread round-robin over 4 clients, an empty critical section:
     * acquisitions/s, the handoff gap (from one holder's release to the next holder's grant, as the
     * next holder sees it), Jain's index over the threads' acquisitions, and exclusion violations.
     */
    private static long contended(String name, List<PostgresContenders.Subject> clients) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicLong lastRelease = new AtomicLong();
        AtomicInteger lastClient = new AtomicInteger(-1);
        long[] counts = new long[THREADS];
        List<long[]> gaps = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(THREADS);
        List<Thread> threads = new ArrayList<>();
        long deadline = System.nanoTime() + CONTENDED_RUN.toNanos();
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            long[] threadGaps = new long[200_000];
            gaps.add(threadGaps);
            Thread thread = new Thread(() -> {
                Lock lock = clients.get(index % clients.size()).lock("contended");
                int g = 0;
                try {
                    while (System.nanoTime() < deadline) {
                        lock.lock();
                        long granted = System.nanoTime();
                        if (inside.incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        long released = lastRelease.get();
                        if (released != 0 && g < threadGaps.length - 1) {
                            // a handoff from another client is kept negative
                            boolean sameClient = lastClient.get() == index % clients.size();
                            threadGaps[g++] = sameClient ? granted - released : released - granted;
                        }
                        lastClient.set(index % clients.size());
                        counts[index]++;
                        inside.decrementAndGet();
                        lastRelease.set(System.nanoTime());
                        lock.unlock();
                    }
                } finally {
                    threadGaps[threadGaps.length - 1] = g;
                    done.countDown();
                }
            });
            threads.add(thread);
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        done.await(5, TimeUnit.MINUTES);
        long elapsed = System.nanoTime() - start;
        running.set(false);
        long total = Arrays.stream(counts).sum();
        double sum = 0;
        double squares = 0;
        for (long c : counts) {
            sum += c;
            squares += (double) c * c;
        }
        double jain = sum * sum / (THREADS * squares);
        long[] signed = gaps.stream().flatMapToLong(g -> Arrays.stream(g, 0, (int) g[g.length - 1])).toArray();
        long[] all = Arrays.stream(signed).map(Math::abs).sorted().toArray();
        long[] within = Arrays.stream(signed).filter(gap -> gap >= 0).sorted().toArray();
        long[] across = Arrays.stream(signed).filter(gap -> gap < 0).map(Math::abs).sorted().toArray();
        System.out.printf(Locale.ROOT, "  contended (16 threads, 4 clients) %-17s %7.0f acquisitions/s  handoff gap p50 %7.0f µs  Jain %.3f"
                        + "  exclusion violations %d%n", name, total / (elapsed / 1e9), p50Micros(all), jain, violations.get());
        System.out.printf(Locale.ROOT, "    handoffs within a client %.0f%% (gap p50 %.0f µs), to another client %.0f%% (gap p50 %.0f µs)%n",
                100.0 * within.length / Math.max(1, all.length), p50Micros(within),
                100.0 * across.length / Math.max(1, all.length), p50Micros(across));
        return total;
    }

    private static double p50Micros(long[] sorted) {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2] / 1e3;
    }

    /**
     * The dlock functions the server ran during the run, per acquisition ({@code track_functions}),
     * the round trips an acquisition cost. Called once the run's connections are closed: a backend
     * reports its calls when it exits (an idle one only up to 10 s later).
     */
    private static String functionCallsPer(PostgresServer server, long acquisitions) throws InterruptedException {
        if (acquisitions == 0) {
            return "";
        }
        TimeUnit.MILLISECONDS.sleep(500);
        return server.sql("SELECT coalesce(string_agg(funcname || ' ' || round(calls::numeric / " + acquisitions
                + ", 2), ', ' ORDER BY calls DESC), '') FROM pg_stat_user_functions"
                + " WHERE funcname IN ('dlock_acquire', 'dlock_release', 'dlock_hand_off', 'dlock_abandon')");
    }

    /** 100,000 locks held at once by one client, renewed by the watchdog: rows and bytes in dlock_hold. */
    private static void heldLocks(PostgresServer server, DataSource pool, int count) throws Exception {
        try (LockClient client = LockClient.builder().postgres(pool).defaultLease(Duration.ofMillis(4_500))
                .commandTimeout(Duration.ofMillis(1_400)).build()) {
            AtomicInteger lost = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int from = t;
                threads.add(new Thread(() -> {
                    for (int i = from; i < count; i += THREADS) {
                        client.getLock("held-" + i).acquireAsync().join().whenLost().thenRun(lost::incrementAndGet);
                    }
                }));
            }
            long start = System.nanoTime();
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            long took = System.nanoTime() - start;
            server.sql("VACUUM ANALYZE dlock_hold");
            Thread.sleep(10_000);
            String size = server.sql("SELECT pg_total_relation_size('dlock_hold'), pg_relation_size('dlock_hold'), "
                    + "(SELECT count(*) FROM dlock_hold)");
            String[] parts = size.split("\\|");
            long total = Long.parseLong(parts[0]);
            System.out.printf(Locale.ROOT, "%nheld: %,d locks taken in %.1f s; dlock_hold %s rows, %,d bytes with its "
                            + "index (%,d bytes of table): %.0f bytes per held lock; held 10 s with a 4.5 s lease: %d lost%n",
                    count, took / 1e9, parts[2], total, Long.parseLong(parts[1]), (double) total / count, lost.get());
        }
    }

    /** Lock churn with autovacuum on: dead tuples in dlock_hold after the pairs, and vacuum runs. */
    private static void churn(PostgresServer server, DataSource pool, int pairs) throws Exception {
        try (LockClient client = LockClient.builder().postgres(pool).build()) {
            AtomicInteger next = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < THREADS; t++) {
                int index = t;
                threads.add(new Thread(() -> {
                    DistributedLock lock = client.getLock("churn-" + index);
                    while (next.getAndIncrement() < pairs) {
                        lock.lock();
                        lock.unlock();
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }
            long took = System.nanoTime() - start;
            Thread.sleep(2_000); // the statistics collector reports a little later
            System.out.printf(Locale.ROOT, "%nchurn: %,d lock/unlock pairs on 16 names in %.0f s (%.0f pairs/s); "
                            + "dlock_hold: n_live_tup|n_dead_tup|autovacuum_count|size = %s%n", pairs, took / 1e9,
                    pairs / (took / 1e9), server.sql("SELECT n_live_tup || '|' || n_dead_tup || '|' || autovacuum_count "
                            + "|| '|' || pg_total_relation_size('dlock_hold') FROM pg_stat_user_tables WHERE relname = 'dlock_hold'"));
        }
    }

    private static PostgresContenders.Subject dlock(DataSource pool) {
        LockClient client = LockClient.builder().postgres(pool).build();
        return PostgresContenders.Subject.of(client::getLock, client::close);
    }

    private static HikariDataSource pool(String jdbcUrl) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(20);
        return new HikariDataSource(config);
    }

    private static int intArg(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1].replace("_", "").replace(",", ""));
            }
        }
        return fallback;
    }
}
