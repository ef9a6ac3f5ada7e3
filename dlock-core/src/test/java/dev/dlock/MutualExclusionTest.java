package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.processes.CounterWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MutualExclusionTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @AfterEach
    void closeClients() throws Exception {
        clients.close();
    }

    @Test
    void severalClientsInOneJvmNeverLoseAnIncrement() throws Exception {
        int clientCount = 4;
        int threadsPerClient = 4;
        int incrementsPerThread = 40;
        TestClients.Counter counter = clients.counter(redis.server(), "counter");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clientCount * threadsPerClient);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clientCount; c++) {
                LockClient client = clients.client(redis.server());
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
        assertThat(redis.server().keys("dlock:*")).isEmpty();
    }

    @Test
    void threeJvmsNeverLoseAnIncrement() {
        int increments = 150;
        List<JavaProcess> workers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            workers.add(clients.track(JavaProcesses.start(CounterWorker.class,
                    List.of(redis.server().uri(), "across-jvms", "jvm-counter", Integer.toString(increments)))));
        }
        for (JavaProcess worker : workers) {
            assertThat(worker.waitFor(Duration.ofMinutes(2))).as(worker.log()).isZero();
            assertThat(worker.log()).contains("DONE");
        }
        assertThat(redis.server().command("GET", "jvm-counter")).isEqualTo(Integer.toString(3 * increments));
        assertThat(redis.server().keys("dlock:*")).isEmpty();
    }
}
