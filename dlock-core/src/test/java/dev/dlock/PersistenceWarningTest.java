package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dlock.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client warns when its Redis keeps nothing on disk (a restart forgets every lock), stays quiet
 * when it persists, and when CONFIG is refused.
 */
class PersistenceWarningTest {

    private static final String WARNING = "has neither AOF";

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    private <T extends AutoCloseable> T track(T resource) {
        return resources.track(resource);
    }

    private String log() {
        return stderr.text();
    }

    /** Builds a client and makes one round trip, after which the CONFIG reply (sent first) was handled. */
    private void useOnce(RedisServer server) {
        LockClient client = track(LockClient.builder().store(RedisStore.standalone(server.uri())).build());
        client.getLock("persistence").isLocked();
    }

    @Test
    void warnsOnceWhenRedisHasNeitherAofNorRdb() {
        RedisServer server = track(RedisServer.start());
        useOnce(server);
        await().atMost(Duration.ofSeconds(5)).until(() -> log().contains(WARNING));
        assertThat(log()).contains(server.uri(), "forgets every lock");
        assertThat(log().split(WARNING, -1)).hasSize(2);
    }

    @Test
    void saysNothingWhenRedisWritesAnAppendOnlyFile() {
        RedisServer server = track(RedisServer.start("--appendonly", "yes"));
        useOnce(server);
        assertThat(log()).doesNotContain(WARNING);
    }

    @Test
    void saysNothingWhenConfigIsRefused() {
        RedisServer server = track(RedisServer.start("--rename-command", "CONFIG", ""));
        useOnce(server);
        assertThat(log()).doesNotContain(WARNING);
    }
}
