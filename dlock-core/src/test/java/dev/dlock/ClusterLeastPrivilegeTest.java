package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ACL rules of docs/deployments.md for a Cluster, given to a user on every node of a real one. */
class ClusterLeastPrivilegeTest {

    private static RedisClusterGroup cluster;

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    /** Every {@code ACL SETUSER dlock ...} line of the docs, in order, with this test's password. */
    static List<List<String>> documentedRules() {
        try {
            List<List<String>> rules = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("..", "docs", "deployments.md"))) {
                if (line.trim().startsWith("ACL SETUSER dlock ")) {
                    rules.add(Arrays.asList(line.trim().replace(">CHANGE-ME", ">pw").split("\\s+")));
                }
            }
            return rules;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @BeforeAll
    static void clusterWithTheDocumentedUser() {
        cluster = RedisClusterGroup.start();
        List<List<String>> rules = documentedRules();
        assertThat(rules).hasSize(2);
        for (RedisServer node : cluster.nodes()) {
            for (List<String> rule : rules) {
                assertThat(node.command(rule.toArray(String[]::new))).isEqualTo("OK");
            }
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyLockKindWorksOnTheClusterWithTheDocumentedRules() {
        List<String> asUser = cluster.uris().stream().map(uri -> uri.replace("redis://", "redis://dlock:pw@")).toList();
        LockClient client = resources.track(LockClient.builder().store(RedisStore.cluster(asUser.toArray(String[]::new))).build());
        LockClient other = resources.track(LockClient.builder().store(RedisStore.cluster(asUser.toArray(String[]::new))).build());
        for (int i = 0; i < 6; i++) {
            String name = "acl-" + i;
            DistributedLock lock = client.getLock(name);
            assertThat(lock.tryLock()).isTrue();
            CompletableFuture<Optional<LockHandle>> waiter = other.getLock(name).tryAcquireAsync(Duration.ofSeconds(20));
            lock.unlock();
            waiter.orTimeout(20, TimeUnit.SECONDS).join().orElseThrow().release();
            assertThat(client.getFairLock(name + "-fair").tryLock()).isTrue();
            client.getFairLock(name + "-fair").unlock();
            assertThat(client.getReadWriteLock(name + "-rw").writeLock().tryLock()).isTrue();
            client.getReadWriteLock(name + "-rw").writeLock().unlock();
            client.getSemaphore(name + "-semaphore", 1).tryAcquire().orElseThrow().release();
        }
        assertThat(client.listLocks("acl-*")).isEmpty();
    }
}
