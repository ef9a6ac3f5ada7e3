package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FencingTokenTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void tokensStrictlyIncreaseOverAThousandAcquisitionsByManyClients() throws Exception {
        int acquisitions = 1000;
        List<Long> tokensInHoldOrder = new ArrayList<>();
        AtomicInteger remaining = new AtomicInteger(acquisitions);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            LockClient client = servers.newClient();
            for (int t = 0; t < 2; t++) {
                workers.add(pool.submit(() -> {
                    DistributedLock lock = client.getLock("fenced");
                    while (true) {
                        lock.lock();
                        try {
                            if (remaining.getAndDecrement() <= 0) {
                                return null;
                            }
                            // appended while holding the lock, so list order is hold order
                            tokensInHoldOrder.add(lock.fencingToken());
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        assertThat(tokensInHoldOrder).hasSize(acquisitions);
        for (int i = 1; i < tokensInHoldOrder.size(); i++) {
            assertThat(tokensInHoldOrder.get(i)).as("token %d", i).isGreaterThan(tokensInHoldOrder.get(i - 1));
        }
    }
}
