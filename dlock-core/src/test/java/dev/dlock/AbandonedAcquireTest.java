package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An async acquire whose future its caller completes (a timeout, a cancel, a value of its own)
 * never keeps the lock: the acquire stops, and a grant that comes later goes back at once. A
 * handle's loss future is the caller's copy: cancelling it changes nothing of the hold.
 */
class AbandonedAcquireTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis().withInMemory();

    /** How a caller completes an acquire's future before dlock does. */
    enum Completion {
        OR_TIMEOUT, COMPLETE_ON_TIMEOUT, COMPLETE, COMPLETE_EXCEPTIONALLY, CANCEL, OBTRUDE, COMPLETE_ASYNC;

        <T> void apply(CompletableFuture<T> future) {
            switch (this) {
                case OR_TIMEOUT -> future.orTimeout(20, TimeUnit.MILLISECONDS);
                case COMPLETE_ON_TIMEOUT -> future.completeOnTimeout(null, 20, TimeUnit.MILLISECONDS);
                case COMPLETE -> future.complete(null);
                case COMPLETE_EXCEPTIONALLY -> future.completeExceptionally(new IllegalStateException("given up"));
                case CANCEL -> future.cancel(false);
                case OBTRUDE -> future.obtrudeException(new IllegalStateException("given up"));
                case COMPLETE_ASYNC -> future.completeAsync(() -> null);
            }
            await().atMost(Duration.ofSeconds(10)).until(future::isDone);
        }
    }

    /** What is acquired: a lock, a semaphore's one permit, or a multi-lock over two names. */
    enum Target {
        LOCK, SEMAPHORE, MULTI_LOCK;

        CompletableFuture<LockHandle> acquireAsync(LockClient client) {
            return switch (this) {
                case LOCK -> client.getLock("abandoned").acquireAsync();
                case SEMAPHORE -> client.getSemaphore("abandoned", 1).acquireAsync();
                case MULTI_LOCK -> client.getMultiLock("abandoned-a", "abandoned-b").acquireAsync();
            };
        }

        CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockClient client, Duration wait) {
            return switch (this) {
                case LOCK -> client.getLock("abandoned").tryAcquireAsync(wait);
                case SEMAPHORE -> client.getSemaphore("abandoned", 1).tryAcquireAsync(wait);
                case MULTI_LOCK -> client.getMultiLock("abandoned-a", "abandoned-b").tryAcquireAsync(wait);
            };
        }

        /** Whether another client takes it within 10 s (and gives it back). */
        boolean takenByAnother(LockClient other) throws InterruptedException {
            Optional<LockHandle> taken = tryAcquireAsync(other, Duration.ofSeconds(10)).join();
            taken.ifPresent(LockHandle::release);
            return taken.isPresent();
        }
    }

    static Stream<Arguments> lockCompletions() {
        return servers.topologies().stream().flatMap(topology -> Stream.of(Completion.values())
                .map(completion -> Arguments.of(topology, completion)));
    }

    static Stream<Arguments> targets() {
        return servers.topologies().stream().flatMap(topology -> Stream.of(Target.values())
                .map(target -> Arguments.of(topology, target)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("lockCompletions")
    void anAcquireCompletedByItsCallerNeverTakesTheLock(Topology topology, Completion completion) throws Exception {
        LockClient client = servers.newClient(topology);
        LockHandle holder = Target.LOCK.acquireAsync(client).get(10, TimeUnit.SECONDS);
        CompletableFuture<LockHandle> abandoned = Target.LOCK.acquireAsync(client);
        completion.apply(abandoned);

        holder.release();
        assertThat(Target.LOCK.takenByAnother(servers.newClient(topology))).as("free once its holder released it").isTrue();
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("targets")
    void aTimedOutAcquireNeverTakesWhatItWaitedFor(Topology topology, Target target) throws Exception {
        LockClient client = servers.newClient(topology);
        LockHandle holder = target.acquireAsync(client).get(10, TimeUnit.SECONDS);
        CompletableFuture<LockHandle> unbounded = target.acquireAsync(client);
        CompletableFuture<Optional<LockHandle>> bounded = target.tryAcquireAsync(client, Duration.ofSeconds(30));
        Completion.OR_TIMEOUT.apply(unbounded);
        Completion.OR_TIMEOUT.apply(bounded);

        holder.release();
        assertThat(target.takenByAnother(servers.newClient(topology))).as("free once its holder released it").isTrue();
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("targets")
    void cancellingTheLossFutureChangesNothingOfTheHold(Topology topology, Target target) throws Exception {
        LockHandle handle = target.acquireAsync(servers.newClient(topology)).get(10, TimeUnit.SECONDS);
        assertThat(handle.whenLost().cancel(false)).isTrue();
        assertThat(handle.whenLost().complete(null)).isTrue();

        assertThat(handle.whenLost()).isNotDone();
        assertThat(handle.isValid()).isTrue();
        handle.release();
        assertThat(target.takenByAnother(servers.newClient(topology))).isTrue();
        servers.assertNothingLeft(topology);
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("targets")
    void aDeliveredHandleCannotBeReplaced(Topology topology, Target target) throws Exception {
        CompletableFuture<LockHandle> acquired = target.acquireAsync(servers.newClient(topology));
        LockHandle handle = acquired.get(10, TimeUnit.SECONDS);

        assertThatThrownBy(() -> acquired.obtrudeValue(null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("release the handle");
        assertThatThrownBy(() -> acquired.obtrudeException(new IllegalStateException())).isInstanceOf(IllegalStateException.class);
        assertThat(acquired.join()).isSameAs(handle);
        handle.release();
        servers.assertNothingLeft(topology);
    }
}
