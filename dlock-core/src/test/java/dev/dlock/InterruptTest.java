package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class InterruptTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void lockInterruptiblyThrowsAndLeavesNothingBehind() throws Exception {
        DistributedLock holder = servers.newClient().getLock("interruptible");
        DistributedLock waiter = servers.newClient().getLock("interruptible");
        holder.lock();
        Object holderState = servers.server().command("HGETALL", "dlock:{interruptible}");

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.lockInterruptibly();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        thread.start();
        awaitSubscribers("dlock:{interruptible}:released", 1);
        thread.interrupt();
        thread.join(10_000);

        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(servers.server().command("HGETALL", "dlock:{interruptible}")).isEqualTo(holderState);
        awaitSubscribers("dlock:{interruptible}:released", 0);
        holder.unlock();
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    @Test
    void interruptedBeforeCallingLockInterruptiblyThrowsAtOnce() {
        DistributedLock lock = servers.newClient().getLock("pre-interrupted");
        Thread.currentThread().interrupt();
        try {
            lock.lockInterruptibly();
            throw new AssertionError("expected InterruptedException");
        } catch (InterruptedException expected) {
            assertThat(servers.server().keys("*{*")).isEmpty();
        }
    }

    @Test
    void lockKeepsWaitingWhenInterruptedAndKeepsTheFlag() throws Exception {
        DistributedLock holder = servers.newClient().getLock("uninterruptible");
        DistributedLock waiter = servers.newClient().getLock("uninterruptible");
        holder.lock();

        AtomicBoolean flagAfterLock = new AtomicBoolean();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.lock();
                flagAfterLock.set(Thread.currentThread().isInterrupted());
                Thread.interrupted();
                waiter.unlock();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        thread.start();
        awaitSubscribers("dlock:{uninterruptible}:released", 1);
        thread.interrupt();
        // still waiting after the interrupt: nothing completed and the waiter is still subscribed
        assertThat(done).isNotDone();
        awaitSubscribers("dlock:{uninterruptible}:released", 1);
        assertThat(waiter.isLocked()).isTrue();

        holder.unlock();
        done.get(10, TimeUnit.SECONDS);
        assertThat(flagAfterLock).isTrue();
    }

    private static void awaitSubscribers(String channel, int count) {
        await().atMost(Duration.ofSeconds(10)).until(() ->
                servers.server().command("PUBSUB", "NUMSUB", channel).toString().endsWith(", " + count + "]"));
    }
}
