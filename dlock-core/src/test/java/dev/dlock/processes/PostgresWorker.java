package dev.dlock.processes;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.PostgresStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM that takes locks on PostgreSQL. Args: jdbcUrl mode ...
 *
 * <ul>
 *   <li>{@code count lockName threads increments}: waits for a row in {@code go}, then each thread
 *       increments the fenced counter {@code fenced(id 1)} the unsafe way (read, pause, write) under
 *       the lock, writing only while its token is above the stored one. Prints
 *       {@code DONE increments=<n> refused=<r> contended=<c>}.</li>
 *   <li>{@code hold lockName leaseMs}: takes the lock (explicit lease, or the watchdog's for 0),
 *       prints {@code HELD <token>} and waits to be killed.</li>
 *   <li>{@code stale lockName leaseMs}: takes the lock with an explicit lease, prints {@code HELD
 *       <token>}, waits for a row in {@code go}, then writes its token to the fenced resource and
 *       prints {@code WRITE accepted} or {@code WRITE refused}.</li>
 *   <li>{@code wait lockName}: waits for the lock, prints {@code ACQUIRED <epoch ms>} as soon as it
 *       has it, and releases it.</li>
 * </ul>
 */
public final class PostgresWorker {

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String mode = args[1];
        try (LockClient client = LockClient.builder().store(PostgresStore.url(url)).build();
                Connection db = DriverManager.getConnection(url)) {
            switch (mode) {
                case "count" -> count(client, url, db, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
                case "hold" -> hold(client, args[2], Long.parseLong(args[3]));
                case "stale" -> stale(client, db, args[2], Long.parseLong(args[3]));
                case "wait" -> {
                    DistributedLock lock = client.getLock(args[2]);
                    System.out.println("WAITING");
                    lock.lock();
                    System.out.println("ACQUIRED " + System.currentTimeMillis());
                    lock.unlock();
                }
                default -> throw new IllegalArgumentException(mode);
            }
        }
        System.exit(0);
    }

    private static void count(LockClient client, String url, Connection db, String name, int threads, int increments)
            throws Exception {
        System.out.println("READY");
        awaitGo(db);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<int[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                int refused = 0;
                int contended = 0;
                DistributedLock lock = client.getLock(name);
                try (Connection own = DriverManager.getConnection(url)) {
                    for (int i = 0; i < increments; i++) {
                        if (!tryOnce(lock)) {
                            contended++;
                            lock.lock();
                        }
                        try {
                            if (!writeFenced(own, lock.fencingToken(), true)) {
                                refused++;
                            }
                        } finally {
                            lock.unlock();
                        }
                    }
                }
                return new int[] {refused, contended};
            }));
        }
        int refused = 0;
        int contended = 0;
        for (Future<int[]> result : results) {
            int[] r = result.get(5, TimeUnit.MINUTES);
            refused += r[0];
            contended += r[1];
        }
        pool.shutdown();
        System.out.println("DONE increments=" + threads * increments + " refused=" + refused + " contended=" + contended);
    }

    /**
     * One attempt; on a loaded machine its answer can come later than the one second a {@code tryLock()}
     * waits for it, and the outcome is then unknown (the attempt given back): the worker waits then,
     * as when the lock was busy.
     */
    private static boolean tryOnce(DistributedLock lock) {
        try {
            return lock.tryLock();
        } catch (LockBackendException e) {
            return false;
        }
    }

    private static void hold(LockClient client, String name, long leaseMs) throws InterruptedException {
        DistributedLock lock = client.getLock(name);
        if (leaseMs > 0) {
            lock.lock(Duration.ofMillis(leaseMs));
        } else {
            lock.lock();
        }
        System.out.println("HELD " + lock.fencingToken());
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void stale(LockClient client, Connection db, String name, long leaseMs) throws Exception {
        DistributedLock lock = client.getLock(name);
        lock.lock(Duration.ofMillis(leaseMs));
        long token = lock.fencingToken();
        System.out.println("HELD " + token);
        awaitGo(db);
        System.out.println(writeFenced(db, token, false) ? "WRITE accepted" : "WRITE refused");
    }

    /**
     * The fenced resource: writes only while the token is above the highest one it has seen. With
     * {@code increment}, reads the value, pauses, and writes value + 1 (the unsafe way that loses
     * updates unless the lock excludes).
     */
    public static boolean writeFenced(Connection db, long token, boolean increment) throws SQLException {
        long value = 0;
        if (increment) {
            try (PreparedStatement read = db.prepareStatement("SELECT value FROM fenced WHERE id = 1");
                    ResultSet row = read.executeQuery()) {
                row.next();
                value = row.getLong(1);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
        }
        try (PreparedStatement write = db.prepareStatement(
                "UPDATE fenced SET value = ?, token = ? WHERE id = 1 AND token < ?")) {
            write.setLong(1, increment ? value + 1 : -1);
            write.setLong(2, token);
            write.setLong(3, token);
            return write.executeUpdate() == 1;
        }
    }

    private static void awaitGo(Connection db) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try (PreparedStatement go = db.prepareStatement("SELECT count(*) FROM go");
                    ResultSet row = go.executeQuery()) {
                row.next();
                if (row.getLong(1) > 0) {
                    return;
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no go row within 120 s");
    }
}
