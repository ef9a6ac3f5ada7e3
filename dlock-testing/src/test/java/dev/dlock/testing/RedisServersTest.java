package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lifecycle of the extension. Each test drives an extension of its own through the callbacks JUnit
 * would call (which do not read their context), so no test depends on another one having run.
 */
class RedisServersTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @Test
    void classScopedServersComeBackHealthyAndEmptyOnTheSamePortsAfterEachTest() {
        RedisServers servers = RedisServers.masters(2).withArgs("--maxmemory", "20mb");
        servers.beforeAll(null);
        List<RedisServer> started = servers.all();
        try {
            List<Integer> ports = started.stream().map(RedisServer::port).toList();
            servers.get(0).command("SET", "k", "v");
            servers.get(1).command("SET", "k", "v");
            servers.get(0).kill();
            servers.get(1).pause();

            servers.afterEach(null);

            assertThat(servers.all().stream().map(RedisServer::port)).containsExactlyElementsOf(ports);
            for (RedisServer server : servers.all()) {
                assertThat(server.isRunning()).isTrue();
                assertThat(server.isPaused()).isFalse();
                assertThat(server.keys("*")).isEmpty();
                assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "20971520"));
            }
        } finally {
            servers.afterAll(null);
        }
        assertThat(started).noneMatch(RedisServer::isRunning);
    }

    @Test
    void anInstanceFieldGivesEachTestItsOwnServerAndStopsItAfterwards() {
        RedisServers own = RedisServers.standalone();
        own.beforeEach(null);
        RedisServer first = own.server();
        assertThat(first.command("PING")).isEqualTo("PONG");
        own.afterEach(null);
        assertThat(first.isRunning()).isFalse();
        assertThatThrownBy(own::server).isInstanceOf(IllegalStateException.class);

        own.beforeEach(null);
        try {
            RedisServer second = own.server();
            assertThat(second).isNotSameAs(first);
            assertThat(second.command("PING")).isEqualTo("PONG");
        } finally {
            own.afterEach(null);
        }
    }

    @Test
    void accessorsSayTheServersAreNotRunningBeforeJUnitStartsThem() {
        RedisServers notStarted = RedisServers.standalone();
        assertThatThrownBy(notStarted::server).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@RegisterExtension");
        assertThatThrownBy(notStarted::uris).isInstanceOf(IllegalStateException.class);
    }

    @Nested
    class NestedClass {

        @Test
        void seesTheEnclosingClassesServersRunning() {
            assertThat(redis.server().command("PING")).isEqualTo("PONG");
            assertThat(redis.server().isRunning()).isTrue();
        }
    }
}
