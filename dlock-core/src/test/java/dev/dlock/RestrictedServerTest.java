package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server that refuses a command dlock needs (as managed services and hardened configurations do
 * with rename-command) fails the client's build with the command's name, instead of every lock
 * call failing later; one that refuses only CONFIG works, its checks skipped.
 */
class RestrictedServerTest {

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    private <T extends AutoCloseable> T track(T resource) {
        return resources.track(resource);
    }

    @Test
    void evalshaDisabledFailsTheBuildNamingIt() {
        RedisServer server = track(RedisServer.start("--rename-command", "EVALSHA", ""));
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(server.uri())).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("Redis at " + server.uri() + " refuses EVALSHA, which every lock operation needs")
                .hasMessageContaining("unknown command")
                .hasMessageContaining("rename-command");
    }

    @Test
    void evalRenamedFailsTheBuildNamingIt() {
        RedisServer server = track(RedisServer.start("--rename-command", "EVAL", "EVAL_8f3c"));
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(server.uri())).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("refuses EVAL,");
    }

    @Test
    void waitRefusedFailsAClientWithReplicaAcksAtBuild() {
        RedisServer server = track(RedisServer.start("--rename-command", "WAIT", ""));
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(server.uri()).replicaAcks(1, Duration.ofMillis(100))).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("refuses WAIT, which replicaAcks needs")
                .hasMessageContaining("unknown command");
        // without replicaAcks nothing needs WAIT
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(server.uri())).build());
        assertThat(client.getLock("no-wait").tryLock()).isTrue();
        client.getLock("no-wait").unlock();
    }

    @Test
    void configRefusedLeavesTheChecksOutAndLocksWork() {
        RedisServer server = track(RedisServer.start("--rename-command", "CONFIG", ""));
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(server.uri())).build());
        DistributedLock lock = client.getLock("no-config");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }
}
