package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.processes.ObservedWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * dlock-core works without Micrometer: a child JVM on this module's test class path (its runtime
 * class path plus test-scoped jars, none of them Micrometer) checks that no Micrometer class can
 * be loaded, then locks with an observer and the slow-lock options set.
 */
class WithoutMicrometerTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @Test
    void locksWithObserverAndSlowThresholdsWhereNoMicrometerClassIsLoadable() {
        JavaProcess child = servers.track(JavaProcesses.start(ObservedWorker.class,
                List.of(servers.server().uri(), "no-micrometer")));
        int exit = child.waitFor(Duration.ofSeconds(60));
        assertThat(exit).as(child.log()).isZero();
        assertThat(child.log()).contains("NO MICROMETER", "OBSERVED 1 1");
    }
}
