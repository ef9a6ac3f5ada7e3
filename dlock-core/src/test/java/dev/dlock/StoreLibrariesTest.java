package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.processes.MissingLibraryWorker;
import dev.dlock.testing.JavaProcess;
import dev.dlock.testing.JavaProcesses;
import dev.dlock.testing.PostgresServers;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each store's client library is an optional dependency of dlock-core: a program without Lettuce (and its
 * Netty and Reactor) locks in memory and on PostgreSQL, and {@link RedisStore} names the Maven coordinates
 * to add; without any store's library, each store value names its own. Run in a separate JVM whose class
 * path lacks those jars.
 */
class StoreLibrariesTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    @Test
    void withoutLettuceAClientLocksInMemoryAndOnPostgresAndRedisStoreNamesTheDependencyToAdd() throws Exception {
        String out = runWithout(List.of("lettuce-core-", "netty-", "reactor-core-"));
        assertThat(out).contains("LETTUCE ClassNotFoundException: io.lettuce.core.RedisClient")
                .contains("MEMORY locked")
                .contains("POSTGRES locked")
                .contains("REDIS IllegalStateException: RedisStore needs io.lettuce:lettuce-core on the class path")
                .contains("REDLOCK IllegalStateException: RedisStore needs io.lettuce:lettuce-core on the class path")
                .doesNotContain("NoClassDefFoundError");
    }

    @Test
    void withoutAnyStoresLibraryEachStoreNamesItsOwn() throws Exception {
        String out = runWithout(List.of("lettuce-core-", "netty-", "reactor-core-", "postgresql-", "zookeeper-"));
        assertThat(out).contains("MEMORY locked")
                .contains("POSTGRES IllegalStateException: PostgresStore needs org.postgresql:postgresql on the class path")
                .contains("REDIS IllegalStateException: RedisStore needs io.lettuce:lettuce-core on the class path")
                .contains("ZOOKEEPER IllegalStateException: ZooKeeperStore needs org.apache.zookeeper:zookeeper on the class path")
                .doesNotContain("NoClassDefFoundError");
    }

    /** Runs the worker on this JVM's class path without the jars whose file names start so; its output. */
    private static String runWithout(List<String> jarPrefixes) throws Exception {
        List<String> kept = new ArrayList<>();
        int dropped = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String file = Path.of(entry).getFileName().toString();
            if (entry.endsWith(".jar") && jarPrefixes.stream().anyMatch(file::startsWith)) {
                dropped++;
            } else {
                kept.add(entry);
            }
        }
        assertThat(dropped).as("jars dropped from the class path").isGreaterThanOrEqualTo(jarPrefixes.size());
        List<String> jvmArgs = new ArrayList<>(JavaProcesses.STARTUP_OPTIONS);
        // a second -cp replaces the one JavaProcesses puts first
        jvmArgs.add("-cp");
        jvmArgs.add(String.join(File.pathSeparator, kept));
        Path java = JavaProcesses.findJava(17).orElseThrow();
        try (JavaProcess worker = JavaProcesses.start(java, jvmArgs, MissingLibraryWorker.class,
                List.of(postgres.server().jdbcUrl()))) {
            assertThat(worker.waitFor(Duration.ofSeconds(60))).as("exit status; output:\n%s", worker.log()).isZero();
            assertThat(worker.log()).contains("DONE");
            return worker.log();
        }
    }
}
