package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class AsyncHandleTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void handleAcquiredOnOneThreadIsReleasedFromAnother() throws Exception {
        DistributedLock lock = servers.newClient().getLock("handed-over");
        ExecutorService acquirer = Executors.newSingleThreadExecutor();
        ExecutorService releaser = Executors.newSingleThreadExecutor();
        try {
            AtomicReference<Thread> acquiredOn = new AtomicReference<>();
            LockHandle handle = acquirer.submit(() -> {
                acquiredOn.set(Thread.currentThread());
                return lock.acquireAsync().get(5, TimeUnit.SECONDS);
            }).get();
            assertThat(handle.isValid()).isTrue();
            assertThat(lock.isLocked()).isTrue();
            assertThat(lock.info().fencingToken()).isEqualTo(handle.fencingToken());

            Thread releasedOn = releaser.submit(() -> {
                handle.release();
                return Thread.currentThread();
            }).get();
            assertThat(releasedOn).isNotSameAs(acquiredOn.get());
            assertThat(handle.isValid()).isFalse();
            assertThat(lock.isLocked()).isFalse();
            assertThat(servers.server().keys("*{*")).isEmpty();
            assertThatThrownBy(handle::release).isExactlyInstanceOf(IllegalMonitorStateException.class);
        } finally {
            acquirer.shutdown();
            releaser.shutdown();
        }
    }

    @Test
    void handlesExcludeEachOtherAndTheWaiterGetsItOnRelease() throws Exception {
        DistributedLock lock = servers.newClient().getLock("handles");
        LockHandle first = lock.acquireAsync(Duration.ofSeconds(30)).get(5, TimeUnit.SECONDS);
        assertThat(lock.tryAcquireAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();

        CompletableFuture<Optional<LockHandle>> second = lock.tryAcquireAsync(Duration.ofSeconds(20));
        assertThat(second).isNotDone();
        CompletableFuture.runAsync(first::close).get(5, TimeUnit.SECONDS);
        try (LockHandle next = second.get(10, TimeUnit.SECONDS).orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
        }
        assertThat(servers.server().keys("*{*")).isEmpty();
    }

    @Test
    void cancellingAPendingAcquireLeavesNothingHeld() throws Exception {
        DistributedLock lock = servers.newClient().getLock("cancelled");
        LockHandle holder = lock.acquireAsync().get(5, TimeUnit.SECONDS);
        CompletableFuture<LockHandle> pending = lock.acquireAsync();
        assertThat(pending.cancel(true)).isTrue();
        holder.release();
        // a grant racing the cancel is given back at once, so the keyspace empties
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> servers.server().keys("*{*").isEmpty());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                servers.server().command("PUBSUB", "NUMSUB", "dlock:{cancelled}:released").toString().endsWith(", 0]"));
    }
}
