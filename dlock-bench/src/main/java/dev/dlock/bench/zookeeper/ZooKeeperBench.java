package dev.dlock.bench.zookeeper;

import dev.dlock.DistributedSemaphore;
import dev.dlock.LockClient;
import dev.dlock.LockHandle;
import dev.dlock.ZooKeeperStore;
import dev.dlock.testing.ZooKeeperEnsemble;
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
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * dlock on ZooKeeper side by side with Curator's {@code InterProcessMutex} and
 * {@code InterProcessSemaphoreV2}, on one 3-server ensemble started by the run (dlock-testing's
 * {@link ZooKeeperEnsemble}, loopback): the uncontended acquire + release pair, 16 threads over 4
 * clients on one name (acquisitions/s, Jain's fairness index over the threads, exclusion violations),
 * the handoff from a holder in one client to a waiter in another (release to the waiter's return),
 * a 4-permit semaphore under the same 16 threads, and the requests the ensemble received per pair
 * (the servers' {@code zk_packets_received}, so each request counts once, pings included). Client
 * {@code i} of each contender is connected to server {@code i mod 3} alone: a write costs a follower's
 * forward to the leader more than it costs on the leader, so the two uncontended pairs (client 0)
 * run against the same server, and the contended runs spread their clients alike.
 *
 * <p>A first round, round 0, runs both contenders once and is not counted: it warms their code up.
 *
 * <pre>java -cp dlock-bench.jar dev.dlock.bench.zookeeper.ZooKeeperBench [--rounds N]</pre>
 */
public final class ZooKeeperBench {

    private static final int THREADS = 16;
    private static final int CLIENTS = 4;
    private static final int PERMITS = 4;
    private static final Duration CONTENDED_RUN = Duration.ofSeconds(4);
    private static final int UNCONTENDED_PAIRS = 1_000;
    private static final int HANDOFFS = 100;

    private ZooKeeperBench() {
    }

    /** One contender's lock (or semaphore) of one client. */
    interface Held {
        void acquire() throws Exception;

        void release() throws Exception;
    }

    /** A contender: its clients and how one of them names a lock or a semaphore. */
    interface Contender extends AutoCloseable {
        Held lock(int client, String name);

        Held semaphore(int client, String name, int permits);

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length == 2 && args[0].equals("--rounds") ? Integer.parseInt(args[1]) : 2;
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.of(3).start()) {
            System.out.println("ZooKeeper " + version(ensemble) + ", 3 servers on loopback started by the run; "
                    + Runtime.getRuntime().availableProcessors() + " cores; the uncontended pairs against server 0, "
                    + (ensemble.leader().map(leader -> leader == ensemble.server(0)).orElse(false) ? "the leader" : "a follower"));
            // round 0 warms both contenders' code up (dlock's path is longer: its first round ran cold) and is not counted
            for (int round = 0; round <= rounds; round++) {
                System.out.println(round == 0 ? "\nround 0 (warm-up, not counted)" : "\nround " + round);
                for (String name : round % 2 == 1 ? List.of("Curator", "dlock") : List.of("dlock", "Curator")) {
                    try (Contender contender = name.equals("dlock") ? dlock(ensemble) : curator(ensemble)) {
                        uncontended(name, contender, ensemble);
                        contended(name, contender, false);
                        handoff(name, contender);
                        contended(name, contender, true);
                    }
                }
            }
        }
    }

    private static String version(ZooKeeperEnsemble ensemble) {
        for (String line : ensemble.server(0).fourLetter("srvr").split("\n")) {
            if (line.startsWith("Zookeeper version: ")) {
                return line.substring("Zookeeper version: ".length()).split("[-,]")[0];
            }
        }
        return "?";
    }

    /** The connect string of client {@code i}'s one server: see the class comment. */
    private static String serverOf(ZooKeeperEnsemble ensemble, int client) {
        return ensemble.server(client % ensemble.servers().size()).address();
    }

    static Contender dlock(ZooKeeperEnsemble ensemble) {
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(LockClient.builder().store(ZooKeeperStore.connect(serverOf(ensemble, i))).build());
        }
        return new Contender() {
            @Override
            public Held lock(int client, String name) {
                dev.dlock.DistributedLock lock = clients.get(client).getLock(name);
                return new Held() {
                    @Override
                    public void acquire() {
                        lock.lock();
                    }

                    @Override
                    public void release() {
                        lock.unlock();
                    }
                };
            }

            @Override
            public Held semaphore(int client, String name, int permits) {
                DistributedSemaphore semaphore = clients.get(client).getSemaphore(name, permits);
                ThreadLocal<LockHandle> held = new ThreadLocal<>();
                return new Held() {
                    @Override
                    public void acquire() throws InterruptedException {
                        held.set(semaphore.acquire());
                    }

                    @Override
                    public void release() {
                        held.get().release();
                    }
                };
            }

            @Override
            public void close() {
                clients.forEach(LockClient::close);
            }
        };
    }

    static Contender curator(ZooKeeperEnsemble ensemble) {
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            CuratorFramework client = CuratorFrameworkFactory.newClient(serverOf(ensemble, i), 30_000, 15_000,
                    new ExponentialBackoffRetry(10, 3));
            client.start();
            clients.add(client);
        }
        return new Contender() {
            @Override
            public Held lock(int client, String name) {
                InterProcessMutex mutex = new InterProcessMutex(clients.get(client), "/curator/locks/" + name);
                return new Held() {
                    @Override
                    public void acquire() throws Exception {
                        mutex.acquire();
                    }

                    @Override
                    public void release() throws Exception {
                        mutex.release();
                    }
                };
            }

            @Override
            public Held semaphore(int client, String name, int permits) {
                InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(clients.get(client),
                        "/curator/semaphores/" + name, permits);
                ThreadLocal<Lease> held = new ThreadLocal<>();
                return new Held() {
                    @Override
                    public void acquire() throws Exception {
                        held.set(semaphore.acquire());
                    }

                    @Override
                    public void release() throws Exception {
                        semaphore.returnLease(held.get());
                    }
                };
            }

            @Override
            public void close() {
                clients.forEach(CuratorFramework::close);
            }
        };
    }

    private static void uncontended(String name, Contender contender, ZooKeeperEnsemble ensemble) throws Exception {
        Held lock = contender.lock(0, "uncontended");
        for (int i = 0; i < 200; i++) {
            lock.acquire();
            lock.release();
        }
        long packetsBefore = ensemble.packetsReceived();
        long[] pairs = new long[UNCONTENDED_PAIRS];
        long start = System.nanoTime();
        for (int i = 0; i < pairs.length; i++) {
            long t0 = System.nanoTime();
            lock.acquire();
            lock.release();
            pairs[i] = System.nanoTime() - t0;
        }
        long total = System.nanoTime() - start;
        long packets = ensemble.packetsReceived() - packetsBefore;
        Arrays.sort(pairs);
        System.out.printf(Locale.ROOT, "  uncontended %-8s pair p50 %6.0f µs  p99 %6.0f µs  %6.0f pairs/s  %.1f requests/pair%n",
                name, pairs[pairs.length / 2] / 1e3, pairs[pairs.length * 99 / 100] / 1e3, pairs.length / (total / 1e9),
                (double) packets / pairs.length);
    }

    private static void contended(String name, Contender contender, boolean semaphore) throws Exception {
        String target = semaphore ? "sem-" + System.nanoTime() : "contended-" + System.nanoTime();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong failures = new AtomicLong();
        long[] counts = new long[THREADS];
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            Held held = semaphore ? contender.semaphore(t % CLIENTS, target, PERMITS) : contender.lock(t % CLIENTS, target);
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    while (running.get()) {
                        held.acquire();
                        if (inside.incrementAndGet() > (semaphore ? PERMITS : 1)) {
                            violations.incrementAndGet();
                        }
                        counts[index]++;
                        inside.decrementAndGet();
                        held.release();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            });
            thread.start();
            threads.add(thread);
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        TimeUnit.MILLISECONDS.sleep(CONTENDED_RUN.toMillis());
        running.set(false);
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(1));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long total = Arrays.stream(counts).sum();
        double sum = 0;
        double squares = 0;
        for (long c : counts) {
            sum += c;
            squares += (double) c * c;
        }
        double jain = squares == 0 ? 0 : sum * sum / (counts.length * squares);
        System.out.printf(Locale.ROOT, "  %-11s %-8s %d threads / %d clients: %7.0f acquisitions/s  Jain %.2f  violations %d%s%n",
                semaphore ? "semaphore(" + PERMITS + ")" : "contended", name, THREADS, CLIENTS, total / seconds, jain,
                violations.get(), failures.get() > 0 ? "  failures " + failures.get() : "");
    }

    /** A holder in client 0 releases; a waiter in client 1 returns from its acquire: that time, p50 and p90. */
    private static void handoff(String name, Contender contender) throws Exception {
        Held holder = contender.lock(0, "handoff");
        Held waiter = contender.lock(1, "handoff");
        long[] times = new long[HANDOFFS];
        for (int i = 0; i < HANDOFFS; i++) {
            holder.acquire();
            AtomicLong acquiredAt = new AtomicLong();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread thread = new Thread(() -> {
                waiting.countDown();
                try {
                    waiter.acquire();
                    acquiredAt.set(System.nanoTime());
                    waiter.release();
                } catch (Exception e) {
                    acquiredAt.set(-1);
                }
            });
            thread.start();
            waiting.await();
            // the waiter's first attempt found the lock taken and it waits for the release
            TimeUnit.MILLISECONDS.sleep(20);
            long releasedAt = System.nanoTime();
            holder.release();
            thread.join();
            times[i] = acquiredAt.get() - releasedAt;
        }
        Arrays.sort(times);
        System.out.printf(Locale.ROOT, "  handoff     %-8s to another client: p50 %6.0f µs  p90 %6.0f µs%n", name,
                times[HANDOFFS / 2] / 1e3, times[HANDOFFS * 9 / 10] / 1e3);
    }
}
