package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.processes.HoldingWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class HolderCrashTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void killedHoldersLockFreesWhenItsLeaseEndsAndNotBefore() throws Exception {
        long leaseMs = 2000;
        JavaProcess holder = servers.track(JavaProcesses.start(HoldingWorker.class,
                List.of(servers.server().uri(), "crash", Long.toString(leaseMs))));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> holder.log().contains("HOLDING") || !holder.process().isAlive());
        assertThat(holder.log()).as("holder process log").contains("HOLDING");
        DistributedLock lock = servers.newClient().getLock("crash");
        assertThat(lock.tryLock()).isFalse();

        holder.kill();
        long killedAt = System.nanoTime();
        long leaseLeftMs = (Long) servers.server().command("PTTL", "dlock:{crash}");
        assertThat(leaseLeftMs).isPositive().isLessThanOrEqualTo(leaseMs);

        assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        // Redis freed it only when the lease ran out; the waiter got it then, not before
        assertThat(waitedMs).isGreaterThanOrEqualTo(leaseLeftMs - 5);
        // and not at the end of its 10 s wait either (the margin is for a loaded machine's late wake-up)
        assertThat(waitedMs).isLessThan(leaseMs + 4000);
        lock.unlock();
    }
}
