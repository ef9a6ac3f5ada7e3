package dev.dlock.bench.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * dlock on PostgreSQL side by side with Spring Integration's {@code JdbcLockRegistry} (its own
 * schema, from its jar) and a raw floor (one {@code INSERT ... ON CONFLICT (name) DO UPDATE ... WHERE
 * <expired> RETURNING <token>} and one {@code DELETE ... WHERE name = ? AND owner = ?} per pair on one
 * connection), on one PostgreSQL server started by the run; a HikariCP pool per client (as separate
 * services would have). One name is contended in four shapes: between services (4 and 16 clients,
 * one thread each), within one client (16 threads), and 16 threads over 4 clients. Also: what 100,000 held locks cost in the
 * table, and the dead tuples that lock churn leaves with autovacuum on. After the contended dlock run it
 * prints the dlock functions the server ran per acquisition (its round trips); after each contended run,
 * the handoff from a holder in one client to a waiter in another ({@link CrossClientHandoff}). First it measures
 * what a NOTIFY takes to reach a listening thread, the floor under a handoff to another client.
 *
 * <pre>java -cp dlock-bench.jar dev.dlock.bench.postgres.PostgresBench [--rounds N] [--held LOCKS] [--churn PAIRS]
 *     [--hot SECONDS [--window SECONDS]] [--fillfactor N] [--autovacuum-tuned]</pre>
 *
 * <p>{@code --hot}: 16 threads over 4 dlock clients on one name for that long, the acquisitions of
 * each window (60 s by default) and what the tables hold after it: the hot lock on autovacuum's
 * settings (default off: 0). {@code --hot-schema-version 2}: the hot lock on the functions of that
 * earlier schema version instead (insert and delete per grant), for comparison on the same machine.
 * {@code --fillfactor N}: dlock_hold's fillfactor for the run instead of the schema's.
 *
 * <p>{@code --autovacuum-tuned}: autovacuum wakes every second and vacuums dlock's tables after
 * 1,000 dead rows without pauses, as deployments.md advises for hot locks (default: PostgreSQL's).
 */
public final class PostgresBench {

    private static final int THREADS = 16;
    /** The contended shapes, {clients, threads per client}: between services, within one client, both. */
    private static final List<int[]> SHAPES = List.of(new int[] {4, 1}, new int[] {16, 1}, new int[] {1, 16},
            new int[] {4, 4});
    private static final Duration CONTENDED_RUN = Duration.ofSeconds(4);
    private static final int UNCONTENDED_PAIRS = 2_000;

    private PostgresBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = intArg(args, "--rounds", 3);
        int churnPairs = intArg(args, "--churn", 1_000_000);
        int held = intArg(args, "--held", 100_000);
        boolean tuned = Arrays.asList(args).contains("--autovacuum-tuned");
        int hotSeconds = intArg(args, "--hot", 0);
        int windowSeconds = intArg(args, "--window", 60);
        int hotSchema = intArg(args, "--hot-schema-version", 0);
        int fillfactor = intArg(args, "--fillfactor", 0);
        try (PostgresServer server = tuned ? PostgresServer.start("autovacuum=on", "track_functions=all", "autovacuum_naptime=1")
                : PostgresServer.start("autovacuum=on", "track_functions=all");
                HikariDataSource pool = pool(server.jdbcUrl())) {
            System.out.println("PostgreSQL: " + server.sql("SHOW server_version") + ", loopback, a server of the run's own"
                    + " (fsync off); HikariCP pool of 20; " + Runtime.getRuntime().availableProcessors() + " cores");
            NotifyLatency.measure(server.jdbcUrl());
            PostgresContenders.createJdbcLockRegistrySchema(pool);
            PostgresContenders.createRawSchema(pool);
            if (fillfactor > 0) {
                LockClient.builder().store(PostgresStore.dataSource(pool)).build().close(); // creates dlock's tables
                server.sql("ALTER TABLE dlock_hold SET (fillfactor = " + fillfactor + ")");
                System.out.println("dlock_hold fillfactor " + fillfactor);
            }
            if (tuned) {
                LockClient.builder().store(PostgresStore.dataSource(pool)).build().close(); // creates dlock's tables
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
                        uncontended(names.get(k), subject, names.get(k).equals("dlock") ? server : null, pool);
                    }
                    if (k != 0) {
                        for (int[] shape : SHAPES) {
                            // each client as a service of its own: its own pool, as it would have
                            // what the shared pool's backends ran is counted before the reset
                            reportBackendStats(pool);
                            server.sql("SELECT pg_stat_reset()");
                            long acquisitions = 0;
                            List<PostgresContenders.Subject> clients = new ArrayList<>();
                            List<HikariDataSource> pools = new ArrayList<>();
                            for (int c = 0; c < shape[0]; c++) {
                                pools.add(pool(server.jdbcUrl(), shape[1] + 4));
                                clients.add(subjects.get(k).apply(pools.get(c)));
                            }
                            try {
                                acquisitions = contended(names.get(k), clients, shape[1], CONTENDED_RUN).total();
                            } finally {
                                clients.forEach(PostgresContenders.Subject::close);
                                pools.forEach(HikariDataSource::close);
                            }
                            if (names.get(k).equals("dlock")) {
                                System.out.println("    dlock functions called per acquisition: "
                                        + functionCallsPer(server, acquisitions));
                            }
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
            if (hotSeconds > 0) {
                if (hotSchema > 0) {
                    earlierSchema(server, hotSchema);
                }
                hot(server, Duration.ofSeconds(hotSeconds), Duration.ofSeconds(windowSeconds));
            }
        }
    }

    /**
     * One thread's acquire/release pairs on a free name. With {@code server} given (dlock), also the
     * time the server spent in dlock's functions per call ({@code pg_stat_user_functions}, each
     * function with the helpers it ran): what of the pair is the database's, and what the client's.
     */
    private static void uncontended(String name, PostgresContenders.Subject subject, PostgresServer server,
                                    HikariDataSource pool) throws InterruptedException {
        Lock lock = subject.lock("uncontended");
        for (int i = 0; i < 500; i++) {
            lock.lock();
            lock.unlock();
        }
        if (server != null) {
            reportBackendStats(pool);
            server.sql("SELECT pg_stat_reset()");
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
        if (server != null) {
            reportBackendStats(pool);
            System.out.println("    in the server per call (mean): " + server.sql("SELECT coalesce(string_agg(funcname || ' '"
                    + " || round(total_time::numeric * 1000 / calls) || ' µs', ', ' ORDER BY funcname), '') FROM pg_stat_user_functions"
                    + " WHERE funcname IN ('dlock_acquire', 'dlock_release') AND calls > 0"));
        }
    }

    /** What a contended run counted: acquisitions in all, and per window when asked. */
    record Tally(long total, long[] windows) {
    }

    /**
     * {@code threadsPerClient} threads in each client on one name, an empty critical section:
     * acquisitions/s, the handoff gap (from one holder's release to the next holder's grant, as the
     * next holder sees it), Jain's index over the threads' acquisitions, and exclusion violations.
     */
    private static Tally contended(String name, List<PostgresContenders.Subject> clients, int threadsPerClient,
            Duration run) throws Exception {
        return contended(name, clients, threadsPerClient, run, run);
    }

    /** As above, counting the acquisitions of each {@code window} of the run as well. */
    private static Tally contended(String name, List<PostgresContenders.Subject> clients, int threadsPerClient,
            Duration run, Duration window) throws Exception {
        int threadCount = clients.size() * threadsPerClient;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicLong lastRelease = new AtomicLong();
        AtomicInteger lastClient = new AtomicInteger(-1);
        long[] counts = new long[threadCount];
        int windowCount = (int) Math.max(1, run.toNanos() / window.toNanos());
        java.util.concurrent.atomic.AtomicLongArray perWindow = new java.util.concurrent.atomic.AtomicLongArray(windowCount);
        List<long[]> gaps = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(threadCount);
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + run.toNanos();
        for (int t = 0; t < threadCount; t++) {
            int index = t;
            long[] threadGaps = new long[200_000];
            gaps.add(threadGaps);
            Thread thread = new Thread(() -> {
                int client = index % clients.size();
                Lock lock = clients.get(client).lock("contended");
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
                            boolean sameClient = lastClient.get() == client;
                            threadGaps[g++] = sameClient ? granted - released : released - granted;
                        }
                        lastClient.set(client);
                        counts[index]++;
                        perWindow.incrementAndGet((int) Math.min(windowCount - 1, (granted - start) / window.toNanos()));
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
        threads.forEach(Thread::start);
        done.await(run.toMinutes() + 5, TimeUnit.MINUTES);
        long elapsed = System.nanoTime() - start;
        long total = Arrays.stream(counts).sum();
        double sum = 0;
        double squares = 0;
        for (long c : counts) {
            sum += c;
            squares += (double) c * c;
        }
        double jain = sum * sum / (threadCount * squares);
        long[] signed = gaps.stream().flatMapToLong(g -> Arrays.stream(g, 0, (int) g[g.length - 1])).toArray();
        long[] all = Arrays.stream(signed).map(Math::abs).sorted().toArray();
        long[] within = Arrays.stream(signed).filter(gap -> gap >= 0).sorted().toArray();
        long[] across = Arrays.stream(signed).filter(gap -> gap < 0).map(Math::abs).sorted().toArray();
        String shape = clients.size() == 1 ? "within one client, " + threadCount + " threads"
                : threadsPerClient == 1 ? "between services, " + clients.size() + " clients"
                : threadCount + " threads over " + clients.size() + " clients";
        System.out.printf(Locale.ROOT, "  contended (%s) %-17s %7.0f acquisitions/s  handoff gap p50 %7.0f µs  Jain %.3f"
                        + "  exclusion violations %d%n", shape, name, total / (elapsed / 1e9), p50Micros(all), jain, violations.get());
        System.out.printf(Locale.ROOT, "    handoffs within a client %.0f%% (gap p50 %.0f µs), to another client %.0f%% (gap p50 %.0f µs)%n",
                100.0 * within.length / Math.max(1, all.length), p50Micros(within),
                100.0 * across.length / Math.max(1, all.length), p50Micros(across));
        long[] windows = new long[windowCount];
        for (int w = 0; w < windowCount; w++) {
            windows[w] = perWindow.get(w);
        }
        return new Tally(total, windows);
    }

    /**
     * The hot lock: 16 threads over 4 dlock clients on one name for {@code run}, on the server's
     * autovacuum settings; the rate of each window, the last against the first, and what dlock_hold
     * and dlock_waiter hold afterwards (dead tuples, heap-only updates, size).
     */
    private static void hot(PostgresServer server, Duration run, Duration window) throws Exception {
        server.sql("SELECT pg_stat_reset()");
        String load = loadAverage();
        List<PostgresContenders.Subject> clients = new ArrayList<>();
        List<HikariDataSource> pools = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            pools.add(pool(server.jdbcUrl(), 8));
            clients.add(dlock(pools.get(c)));
        }
        System.out.printf(Locale.ROOT, "%nhot lock: 16 threads over 4 clients on one name for %d s, windows of %d s (load %s)%n",
                run.toSeconds(), window.toSeconds(), load);
        Tally tally;
        try {
            tally = contended("dlock", clients, 4, run, window);
        } finally {
            clients.forEach(PostgresContenders.Subject::close);
            pools.forEach(HikariDataSource::close);
        }
        StringBuilder rates = new StringBuilder();
        for (long w : tally.windows()) {
            rates.append(String.format(Locale.ROOT, " %.0f", w / (double) window.toSeconds()));
        }
        long[] windows = tally.windows();
        System.out.printf(Locale.ROOT, "    acquisitions/s per window:%s; last/first %.2f; %,d acquisitions (load %s at the end)%n",
                rates, windows[windows.length - 1] / (double) Math.max(1, windows[0]), tally.total(), loadAverage());
        Thread.sleep(1_000); // the statistics reach pg_stat_user_tables a little later
        for (String table : List.of("dlock_hold", "dlock_waiter")) {
            System.out.println("    " + table + ": n_live_tup|n_dead_tup|n_tup_upd|n_tup_hot_upd|n_tup_ins|n_tup_del|autovacuum_count|size = "
                    + server.sql("SELECT concat_ws('|', n_live_tup, n_dead_tup, n_tup_upd, n_tup_hot_upd, n_tup_ins, n_tup_del, "
                    + "autovacuum_count, pg_total_relation_size(relid)) FROM pg_stat_user_tables WHERE relname = '" + table + "'"));
        }
    }

    private static double p50Micros(long[] sorted) {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2] / 1e3;
    }

    /**
     * Closes the pool's idle connections and waits for their backends to report what they ran: a
     * backend reports its function calls as it exits (an idle one only up to 10 s later).
     */
    private static void reportBackendStats(HikariDataSource pool) throws InterruptedException {
        pool.getHikariPoolMXBean().softEvictConnections();
        TimeUnit.MILLISECONDS.sleep(500);
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
        try (LockClient client = LockClient.builder().store(PostgresStore.dataSource(pool)).defaultLease(Duration.ofMillis(4_500))
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
        try (LockClient client = LockClient.builder().store(PostgresStore.dataSource(pool)).build()) {
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
                            + "dlock_hold: n_live_tup|n_dead_tup|autovacuum_count|size|n_tup_upd|n_tup_hot_upd = %s%n", pairs,
                    took / 1e9, pairs / (took / 1e9), server.sql("SELECT concat_ws('|', n_live_tup, n_dead_tup, autovacuum_count, "
                            + "pg_total_relation_size('dlock_hold'), n_tup_upd, n_tup_hot_upd) FROM pg_stat_user_tables "
                            + "WHERE relname = 'dlock_hold'"));
        }
    }

    /**
     * Installs dlock's schema of an earlier version (its files up to it) and has it report the
     * current version, so that this build's client runs on that version's tables and functions
     * (their signatures are this build's): the hot lock before and after, on one machine.
     */
    private static void earlierSchema(PostgresServer server, int version) {
        StringBuilder files = new StringBuilder();
        for (int v = 1; v <= version; v++) {
            try (java.io.InputStream in = LockClient.class.getClassLoader()
                    .getResourceAsStream("dev/dlock/postgres/V" + v + "__dlock.sql")) {
                files.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).append(";\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        server.sql(files.toString());
        // 4: this build's version, which its client checks at start; its tokens step by 16 as version 4's do,
        // since this build's client passes locks between its own threads with the 15 tokens between
        server.sql("ALTER SEQUENCE dlock_token_seq INCREMENT BY 16; CREATE OR REPLACE FUNCTION dlock_passed(p_name text, "
                + "p_owner text, p_token bigint, p_holder text) RETURNS integer LANGUAGE sql AS $$ SELECT 0 $$; "
                + "CREATE OR REPLACE FUNCTION dlock_schema_version() RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT 4 $$");
        System.out.println("hot lock on the functions of schema version " + version);
    }

    private static PostgresContenders.Subject dlock(DataSource pool) {
        LockClient client = LockClient.builder().store(PostgresStore.dataSource(pool)).build();
        return PostgresContenders.Subject.of(client::getLock, client::close);
    }

    /** The 1, 5 and 15 minute load averages ({@code /proc/loadavg}): the machine is shared. */
    private static String loadAverage() {
        try {
            String[] parts = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static HikariDataSource pool(String jdbcUrl) {
        return pool(jdbcUrl, 20);
    }

    private static HikariDataSource pool(String jdbcUrl, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(size);
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
