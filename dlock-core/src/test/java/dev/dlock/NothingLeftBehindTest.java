package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Semaphores and multi-locks used by the thousand leave Redis as they found it. */
class NothingLeftBehindTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void aThousandSemaphoresAndMultiLocksUsedAndReleasedLeaveTheKeyCountAsItWas() throws Exception {
        LockClient client = servers.newClient();
        LockClient waiters = servers.newClient();
        // the keys a server keeps are not per name: the token floor (it expires 10 minutes after the
        // last grant) and each client's record (10 minutes after the client's last lock)
        for (LockClient each : List.of(client, waiters)) {
            each.getLock("warm-up").lock();
            each.getLock("warm-up").unlock();
        }
        long baseline = dbSize();

        for (int i = 0; i < 1000; i++) {
            DistributedSemaphore semaphore = client.getSemaphore("semaphore-" + i, 2);
            LockHandle first = semaphore.acquire();
            LockHandle second = semaphore.acquire(Duration.ofMinutes(5));
            CompletableFuture<LockHandle> waiting = i % 10 == 0 ? waiters.getSemaphore("semaphore-" + i, 2).acquireAsync() : null;
            second.release();
            if (waiting != null) {
                waiting.get(10, TimeUnit.SECONDS).release();
            }
            first.release();

            DistributedLock multi = client.getMultiLock("multi-" + i + "-a", "multi-" + i + "-b", "shared-" + (i % 7));
            multi.lock();
            if (i % 10 == 0) {
                assertThat(waiters.getMultiLock("multi-" + i + "-b", "shared-" + (i % 7)).tryLock(20, TimeUnit.MILLISECONDS))
                        .isFalse();
            }
            multi.unlock();
        }
        // released: gone at once
        assertThat(dbSize()).isEqualTo(baseline);

        // expired: gone when Redis expires the key (its expiry cycle runs ten times a second)
        List<LockHandle> expiring = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expiring.add(client.getSemaphore("expiring-" + i, 1).acquire(Duration.ofMillis(100)));
        }
        for (LockHandle permit : expiring) {
            assertThat(permit.whenLost().get(10, TimeUnit.SECONDS)).isNotNull();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> dbSize() == baseline);
        assertThat(servers.server().keys("dlock:{*")).isEmpty();
    }

    private static long dbSize() {
        return (Long) servers.server().command("DBSIZE");
    }
}
