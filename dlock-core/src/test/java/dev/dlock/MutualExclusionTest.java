package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.processes.CounterWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

class MutualExclusionTest {

    /** A worker's last line: see {@link CounterWorker}. */
    private static final Pattern DONE = Pattern.compile("DONE first=(\\d+) last=(\\d+) contended=(\\d+)");

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void severalClientsInOneJvmNeverLoseAnIncrement() throws Exception {
        int clientCount = 4;
        int threadsPerClient = 4;
        int incrementsPerThread = 40;
        UnsafeCounter counter = servers.counter("counter");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clientCount * threadsPerClient);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clientCount; c++) {
                LockClient client = servers.newClient();
                for (int t = 0; t < threadsPerClient; t++) {
                    done.add(pool.submit(() -> {
                        DistributedLock lock = client.getLock("exclusive");
                        for (int i = 0; i < incrementsPerThread; i++) {
                            lock.lock();
                            try {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                counter.incrementUnsafely();
                                inside.decrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).isZero();
        assertThat(counter.value()).isEqualTo((long) clientCount * threadsPerClient * incrementsPerThread);
        assertThat(servers.server().keys("dlock:{*")).isEmpty();
    }

    /**
     * Three worker JVMs increment one counter under the lock. A start barrier (each worker connects,
     * reports ready, then blocks in BLPOP until the test pushes one "go" token per worker) and runs
     * long enough to outlast the JVMs' start-up make them really compete: the test checks that
     * their runs interleave (each worker's first..last counter value overlaps every other
     * worker's) and that the lock was found held by another JVM, not just that the sum is right.
     */
    @Test
    void threeJvmsNeverLoseAnIncrement() {
        int workerCount = 3;
        int increments = 200;
        RedisServer server = servers.server();
        List<JavaProcess> workers = new ArrayList<>();
        for (int i = 0; i < workerCount; i++) {
            workers.add(servers.track(JavaProcesses.start(CounterWorker.class,
                    List.of(server.uri(), "across-jvms", "jvm-counter", Integer.toString(increments), "ready", "go"))));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (JavaProcess worker : workers) {
                assertThat(worker.process().isAlive()).as("worker exited before the barrier: %s", worker.log()).isTrue();
            }
            return (Long) server.command("LLEN", "ready") == workerCount;
        });
        String[] tokens = new String[workerCount + 2];
        tokens[0] = "RPUSH";
        tokens[1] = "go";
        Arrays.fill(tokens, 2, tokens.length, "go");
        server.command(tokens);

        List<Run> runs = new ArrayList<>();
        for (JavaProcess worker : workers) {
            assertThat(worker.waitFor(Duration.ofMinutes(2))).as(worker.log()).isZero();
            Matcher done = DONE.matcher(worker.log());
            assertThat(done.find()).as(worker.log()).isTrue();
            runs.add(new Run(Long.parseLong(done.group(1)), Long.parseLong(done.group(2)), Integer.parseInt(done.group(3))));
        }
        LoggerFactory.getLogger(MutualExclusionTest.class).info("worker runs (counter values written, contended acquisitions): {}", runs);

        assertThat(server.command("GET", "jvm-counter")).isEqualTo(Integer.toString(workerCount * increments));
        for (Run a : runs) {
            for (Run b : runs) {
                assertThat(a.first() <= b.last() && b.first() <= a.last())
                        .as("runs %s and %s interleave", a, b).isTrue();
            }
        }
        assertThat(runs).as("every worker found the lock held by another JVM at least once")
                .allSatisfy(run -> assertThat(run.contended()).isPositive());
        assertThat(server.keys("dlock:{*")).isEmpty();
    }

    /** One worker's first and last counter value written, and how often it found the lock held. */
    private record Run(long first, long last, int contended) {}
}
