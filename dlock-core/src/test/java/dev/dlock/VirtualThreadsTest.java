package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dlock.processes.CallbackThreadWorker;
import dev.dlock.processes.VirtualThreadWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.RedisServers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Runs in child JVMs of JDK 21 or newer, since the project itself is built for Java 17. */
class VirtualThreadsTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @Test
    void thousandVirtualThreadsNeverHoldTheLockTogether() {
        Optional<Path> java21 = JavaProcesses.findJava(21);
        assumeTrue(java21.isPresent(), "skipped: no JDK 21+ found (set JDK21_HOME, or install one under /usr/lib/jvm)");
        try (JavaProcess worker = JavaProcesses.start(java21.get(), List.of("-Xmx256m"), VirtualThreadWorker.class,
                List.of(redis.server().uri(), "virtual"))) {
            assertThat(worker.waitFor(Duration.ofMinutes(3))).as(worker.log()).isZero();
            assertThat(worker.log()).contains("HOLDS 1000 OVERLAPS 0 VIRTUAL true");
        }
        assertThat(redis.server().keys("*{*")).isEmpty();
    }

    @Test
    void asyncCallbacksRunOnVirtualThreadsByDefault() {
        Optional<Path> java21 = JavaProcesses.findJava(21);
        assumeTrue(java21.isPresent(), "skipped: no JDK 21+ found (set JDK21_HOME, or install one under /usr/lib/jvm)");
        try (JavaProcess worker = JavaProcesses.start(java21.get(), List.of("-Xmx256m"), CallbackThreadWorker.class,
                List.of(redis.server().uri(), "callbacks"))) {
            assertThat(worker.waitFor(Duration.ofMinutes(1))).as(worker.log()).isZero();
            assertThat(worker.log()).contains("CALLBACK VIRTUAL true NAME dlock-callback-");
        }
        assertThat(redis.server().keys("*{*")).isEmpty();
    }
}
