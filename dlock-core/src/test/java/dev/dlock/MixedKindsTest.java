package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockServers.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of lock of one name excludes every other kind of it, whichever is taken first: a
 * plain, fair, read, write lock and a semaphore's permit. The semaphore has two permits, so that
 * a refusal cannot come from its count: only a second kind on the name refuses it.
 */
class MixedKindsTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedisAndRedlock(3).withInMemory().withRedlockNodeTimeout(Duration.ofMillis(250));

    /** One kind of hold of a name, taken with a single attempt. */
    enum Kind {
        PLAIN((client, name) -> client.getLock(name).tryAcquireAsync(Duration.ZERO).join()),
        FAIR((client, name) -> client.getFairLock(name).tryAcquireAsync(Duration.ZERO).join()),
        READ((client, name) -> client.getReadWriteLock(name).readLock().tryAcquireAsync(Duration.ZERO).join()),
        WRITE((client, name) -> client.getReadWriteLock(name).writeLock().tryAcquireAsync(Duration.ZERO).join()),
        PERMIT((client, name) -> client.getSemaphore(name, 2).tryAcquireAsync(Duration.ZERO).join());

        private final BiFunction<LockClient, String, Optional<LockHandle>> tryOnce;

        Kind(BiFunction<LockClient, String, Optional<LockHandle>> tryOnce) {
            this.tryOnce = tryOnce;
        }

        Optional<LockHandle> tryOnce(LockClient client, String name) {
            return tryOnce.apply(client, name);
        }
    }

    static Stream<Arguments> orderedPairsOfKinds() {
        List<Arguments> pairs = new ArrayList<>();
        for (Topology topology : servers.topologies()) {
            for (Kind first : Kind.values()) {
                for (Kind second : Kind.values()) {
                    if (first != second) {
                        pairs.add(Arguments.of(topology, first, second));
                    }
                }
            }
        }
        return pairs.stream();
    }

    @ParameterizedTest(name = "{0}: {1} held, then {2}")
    @MethodSource("orderedPairsOfKinds")
    void aKindHeldExcludesEveryOtherKindOfTheSameName(Topology topology, Kind first, Kind second) {
        LockClient holder = servers.newClient(topology);
        LockClient other = servers.newClient(topology);
        String name = "mixed-" + first + "-" + second;

        LockHandle held = first.tryOnce(holder, name).orElseThrow();
        // the same kind again is let in where it shares (a second reader, a second permit of two)
        if (first == Kind.READ || first == Kind.PERMIT) {
            first.tryOnce(other, name).orElseThrow().release();
        }
        assertThat(second.tryOnce(other, name)).as("%s while %s is held", second, first).isEmpty();
        held.release();
        LockHandle afterwards = second.tryOnce(other, name).orElseThrow();
        assertThat(first.tryOnce(holder, name)).as("%s while %s is held", first, second).isEmpty();
        afterwards.release();
    }
}
