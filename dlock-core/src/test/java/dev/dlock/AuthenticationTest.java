package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class AuthenticationTest {

    @RegisterExtension
    static final LockServers servers = LockServers.singleRedis();

    @BeforeEach
    void requirePassword() {
        servers.server().command("CONFIG", "SET", "requirepass", "s3cret");
        // closed last, after the test's clients, and before the harness cleans up the server
        servers.track(this::dropPassword);
    }

    /** The harness talks to the server without credentials, so they go before it cleans up. */
    private void dropPassword() {
        RedisClient admin = RedisClient.create(uri(":s3cret"));
        try (var connection = admin.connect()) {
            connection.sync().aclDeluser("alice");
            connection.sync().configSet("requirepass", "");
        } finally {
            admin.shutdown();
        }
    }

    private String uri(String credentials) {
        return "redis://" + credentials + "@" + servers.server().host() + ":" + servers.server().port();
    }

    @Test
    void passwordInTheUriIsUsed() throws Exception {
        LockClient client = servers.track(LockClient.create(RedisStore.standalone(uri(":s3cret"))));
        DistributedLock lock = client.getLock("guarded");
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void aclUserInTheUriIsUsed() throws Exception {
        RedisClient admin = RedisClient.create(uri(":s3cret"));
        try (var connection = admin.connect()) {
            connection.sync().aclSetuser("alice", AclSetuserArgs.Builder.on().addPassword("wonderland")
                    .allKeys().allChannels().allCommands());
        } finally {
            admin.shutdown();
        }
        LockClient alice = servers.track(LockClient.create(RedisStore.standalone(uri("alice:wonderland"))));
        DistributedLock lock = alice.getLock("alice-only");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.info().holder()).isPresent();
        lock.unlock();
    }

    @Test
    void wrongPasswordFailsAtBuildWithoutShowingIt() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone(uri(":wrong-password")))
                .commandTimeout(Duration.ofSeconds(1)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("cannot connect")
                .hasMessageContaining(servers.server().uri())
                .hasMessageNotContaining("wrong-password");
    }
}
