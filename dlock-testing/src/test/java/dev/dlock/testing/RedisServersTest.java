package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Lifecycle of the extension; the test order matters: later tests check what afterEach repaired. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisServersTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.masters(2).withArgs("--maxmemory", "20mb");

    private static List<Integer> ports;

    @Test
    @Order(1)
    void breakServers() {
        ports = redis.all().stream().map(RedisServer::port).collect(Collectors.toList());
        redis.get(0).command("SET", "k", "v");
        redis.get(1).command("SET", "k", "v");
        redis.get(0).kill();
        redis.get(1).pause();
    }

    @Test
    @Order(2)
    void afterEachRestoredHealthyEmptyServersOnTheSamePorts() {
        assertThat(redis.all().stream().map(RedisServer::port)).containsExactlyElementsOf(ports);
        for (RedisServer server : redis.all()) {
            assertThat(server.isRunning()).isTrue();
            assertThat(server.isPaused()).isFalse();
            assertThat(server.keys("*")).isEmpty();
            assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "20971520"));
        }
    }

    @Nested
    class InstanceField {

        @RegisterExtension
        final RedisServers own = RedisServers.standalone();

        private static RedisServer previous;

        @RepeatedTest(2)
        void eachTestGetsItsOwnServer() {
            RedisServer server = own.server();
            assertThat(server.command("PING")).isEqualTo("PONG");
            if (previous != null) {
                assertThat(server).isNotSameAs(previous);
                assertThat(previous.isRunning()).isFalse();
            }
            previous = server;
            // The enclosing class's static servers are still available in nested tests.
            assertThat(redis.server().command("PING")).isEqualTo("PONG");
        }
    }
}
