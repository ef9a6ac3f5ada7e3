package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServers;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class AuthenticationTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    private final TestClients clients = new TestClients();

    @BeforeEach
    void requirePassword() {
        redis.server().command("CONFIG", "SET", "requirepass", "s3cret");
    }

    /** The harness talks to the server without credentials, so they go before it cleans up. */
    @AfterEach
    void dropPassword() throws Exception {
        clients.close();
        RedisClient admin = RedisClient.create(uri(":s3cret"));
        try (var connection = admin.connect()) {
            connection.sync().aclDeluser("alice");
            connection.sync().configSet("requirepass", "");
        } finally {
            admin.shutdown();
        }
    }

    private String uri(String credentials) {
        return "redis://" + credentials + "@" + redis.server().host() + ":" + redis.server().port();
    }

    @Test
    void passwordInTheUriIsUsed() throws Exception {
        LockClient client = clients.track(LockClient.create(uri(":s3cret")));
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
        LockClient alice = clients.track(LockClient.create(uri("alice:wonderland")));
        DistributedLock lock = alice.getLock("alice-only");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.info().holder()).isPresent();
        lock.unlock();
    }

    @Test
    void wrongPasswordFailsAtBuildWithoutShowingIt() {
        assertThatThrownBy(() -> LockClient.builder().redisUri(uri(":wrong-password"))
                .commandTimeout(Duration.ofSeconds(1)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("cannot connect")
                .hasMessageContaining(redis.server().uri())
                .hasMessageNotContaining("wrong-password");
    }
}
