package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.testing.RedisServer;
import dev.dlock.testing.ServerKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The harness runs the server kind the build chose (dlock.server): the tests that name a kind run
 * on it, and the differences between Redis 7.0 and Valkey 8 that dlock meets are shown here.
 */
class ServerKindTest {

    @RegisterExtension
    final OpenResources resources = new OpenResources();

    @Test
    void theHarnessRunsTheChosenServer() {
        RedisServer server = resources.track(RedisServer.start());
        String info = (String) server.command("INFO", "server");
        if (ServerKind.current() == ServerKind.VALKEY) {
            // Valkey answers as the Redis it forked from (7.2.4) and names itself beside it
            assertThat(info).contains("server_name:valkey", "valkey_version:8.", "redis_version:7.2.4");
        } else {
            assertThat(info).contains("redis_version:7.").doesNotContain("valkey");
        }
    }

    @Test
    void clientSetinfoExistsOnValkeyNotOnRedis70() {
        RedisServer server = resources.track(RedisServer.start());
        // CLIENT SETINFO came with Redis 7.2, which Valkey forked: Lettuce names its library with it
        // where it exists, so the ACL rule lists it as optional
        Object reply;
        try {
            reply = server.command("CLIENT", "SETINFO", "LIB-NAME", "dlock-test");
        } catch (RuntimeException refused) {
            reply = refused.getMessage();
        }
        if (ServerKind.current() == ServerKind.VALKEY) {
            assertThat(reply).isEqualTo("OK");
        } else {
            assertThat(String.valueOf(reply)).containsIgnoringCase("unknown subcommand");
        }
    }
}
