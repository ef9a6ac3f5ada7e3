package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The futures dlock hands out complete on the client's callback executor, never on dlock's own
 * threads: a callback that releases its handle cannot deadlock the store, and a waiter's callback
 * does not run inside the release that handed it the lock, and one that blocks holds up no other
 * acquire of its client (a store hands its replies on on its connection's thread: Lettuce's I/O
 * thread, ZooKeeper's event thread).
 */
class CallbackExecutorTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis().withInMemory().withZooKeeper();

    static List<Topology> topologies() {
        return servers.topologies();
    }

    @ParameterizedTest
    @MethodSource("topologies")
    void aCallbackThatReleasesItsHandleDoesNotWaitForItself(Topology topology) throws Exception {
        DistributedLock lock = servers.newClient(topology).getLock("callback-releases");
        LockHandle holder = lock.acquireAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture<Void> used = lock.acquireAsync().thenAccept(handle -> {
            try (handle) {
                assertThat(handle.isValid()).isTrue();
            }
        });
        holder.release();
        used.get(10, TimeUnit.SECONDS);
        LockHandle again = lock.tryAcquireAsync(Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).orElseThrow();
        again.release();
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest
    @MethodSource("topologies")
    void aWaitersCallbackRunsOnTheDefaultExecutorNotInTheRelease(Topology topology) throws Exception {
        DistributedLock lock = servers.newClient(topology).getLock("callback-thread");
        lock.lock();
        CompletableFuture<Thread> ranOn = lock.acquireAsync().thenApply(handle -> {
            handle.release();
            return Thread.currentThread();
        });
        lock.unlock();
        Thread thread = ranOn.get(10, TimeUnit.SECONDS);
        assertThat(thread).isNotSameAs(Thread.currentThread());
        assertThat(thread.getName()).startsWith("dlock-callback");
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest
    @MethodSource("topologies")
    void aCallbackThatBlocksHoldsUpNoOtherAcquireOfItsClient(Topology topology) throws Exception {
        LockClient client = servers.newClient(topology);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        // held elsewhere first, so that the acquire's future is not yet complete when the callback is
        // chained to it: chained to a completed one, the callback would run (and block) on this thread
        LockHandle first = servers.newClient(topology).getLock("callback-blocks").acquire();
        CompletableFuture<Void> blocking = client.getLock("callback-blocks").acquireAsync().thenAccept(handle -> {
            try (handle) {
                blocked.countDown();
                unblock.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        first.release();
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            // while that callback blocks, another lock of the same client is handed from another client's
            // holder to its waiter: the release's message reaches it on the connection the callback would hold
            LockHandle holder = servers.newClient(topology).getLock("callback-passes").acquire();
            CompletableFuture<LockHandle> waiter = client.getLock("callback-passes").acquireAsync();
            holder.release();
            waiter.get(10, TimeUnit.SECONDS).release();
            assertThat(blocking).isNotDone();
        } finally {
            unblock.countDown();
        }
        blocking.get(10, TimeUnit.SECONDS);
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest
    @MethodSource("topologies")
    void everyFutureHandedOutCompletesOnTheChosenExecutor(Topology topology) throws Exception {
        ExecutorService application = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "app-callbacks"));
        try {
            LockClient client = servers.newClient(topology, builder -> builder.callbackExecutor(application));
            LockClient other = servers.newClient(topology);
            DistributedLock lock = client.getLock("callback-chosen");
            LockHandle holder = lock.acquireAsync().get(10, TimeUnit.SECONDS);
            CompletableFuture<String> lost = holder.whenLost().thenApply(loss -> Thread.currentThread().getName());
            CompletableFuture<LockHandle> waiter = lock.acquireAsync();
            CompletableFuture<String> acquired = waiter.thenApply(handle -> Thread.currentThread().getName());
            LockHandle otherPermit = other.getSemaphore("callback-permits", 1).tryAcquire().orElseThrow();
            CompletableFuture<String> semaphore = client.getSemaphore("callback-permits", 1).tryAcquireAsync(Duration.ofSeconds(10))
                    .thenApply(permit -> {
                        permit.orElseThrow().releaseAsync();
                        return Thread.currentThread().getName();
                    });
            assertThat(other.getLock("callback-chosen").forceUnlock()).isTrue();
            otherPermit.release();

            assertThat(lost.get(10, TimeUnit.SECONDS)).isEqualTo("app-callbacks");
            assertThat(acquired.get(10, TimeUnit.SECONDS)).isEqualTo("app-callbacks");
            assertThat(semaphore.get(10, TimeUnit.SECONDS)).isEqualTo("app-callbacks");
            CompletableFuture<String> released = waiter.join().releaseAsync().thenApply(done -> Thread.currentThread().getName());
            assertThat(released.get(10, TimeUnit.SECONDS)).isIn("app-callbacks", Thread.currentThread().getName());
            servers.assertNothingLeft(topology);
        } finally {
            application.shutdown();
        }
    }

    @Test
    void anExecutorThatRefusesLeavesTheCompletionsToTheDefault() throws Exception {
        ExecutorService shutDown = Executors.newSingleThreadExecutor();
        shutDown.shutdown();
        DistributedLock lock = servers.newClient(Topology.IN_MEMORY, builder -> builder.callbackExecutor(shutDown))
                .getLock("callback-refused");
        LockHandle holder = lock.acquireAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture<String> waiter = lock.acquireAsync().thenApply(handle -> {
            handle.release();
            return Thread.currentThread().getName();
        });
        holder.release();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).startsWith("dlock-callback");
    }

    @Test
    void theCallbackExecutorIsCheckedWhenSet() {
        assertThatThrownBy(() -> LockClient.builder().callbackExecutor(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("callbackExecutor");
        assertThatThrownBy(() -> LockClient.builder().callbackExecutor(Runnable::run).callbackExecutor(Runnable::run))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("callbackExecutor");
    }
}
