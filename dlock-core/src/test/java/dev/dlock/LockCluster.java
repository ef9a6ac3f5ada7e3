package dev.dlock;

import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisClusterGroup;
import dev.dlock.testing.RedisServer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension running one Redis Cluster ({@link RedisClusterGroup}: three masters, three
 * replicas) for a test class, and handing out builders of clients on it.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final LockCluster cluster = new LockCluster();
 * }</pre>
 *
 * <p>Register it in a static field: the cluster starts before the class's first test and stops
 * after its last. Tests close their own clients.
 */
final class LockCluster implements BeforeAllCallback, AfterAllCallback {

    private RedisClusterGroup group;

    /** @return the running cluster */
    RedisClusterGroup group() {
        if (group == null) {
            throw new IllegalStateException("the cluster runs only while the test class runs");
        }
        return group;
    }

    /** @return a builder of a client on the cluster, every other setting the library's default */
    LockClientBuilder clientBuilder() {
        return LockClient.builder().store(RedisStore.cluster(group().uris().toArray(String[]::new)));
    }

    /** Waits (up to 10 s) until no master holds a lock key: every hold was released or expired. */
    void awaitNoLockKeys() {
        for (RedisServer master : group().masters()) {
            await().atMost(10, TimeUnit.SECONDS).until(() -> master.keys("dlock:{*").isEmpty());
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        group = RedisClusterGroup.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (group != null) {
            group.close();
            group = null;
        }
    }
}
