package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.dlock.bench.contenders.BenchLock;
import dev.dlock.bench.contenders.Contender;
import dev.dlock.bench.contenders.RawContenders;
import dev.dlock.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fenced quorum floor on three real redis-servers: it excludes like the raw quorum floor, and
 * its tokens follow dlock's rule (at least the server's clock, above the token floor, which every
 * grant and every release of a higher quorum token raises).
 */
class FencedQuorumFloorTest {

    @Test
    void excludesAndKeepsEachServersTokenFloorAtTheHighestTokenGranted() {
        List<RedisServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                servers.add(RedisServer.start());
            }
            List<String> uris = servers.stream().map(RedisServer::uri).toList();
            // a floor far above every clock: the next token must start above it, not at the clock
            long raised = 9_000_000_000_000_000L;
            servers.get(1).command("SET", "fenced-floor:token-floor", Long.toString(raised));
            try (Contender first = RawContenders.fencedQuorumFloor(uris, Contender.Settings.DEFAULTS);
                 Contender second = RawContenders.fencedQuorumFloor(uris, Contender.Settings.DEFAULTS)) {
                BenchLock held = first.lock("bench:fenced");
                held.lock();
                // lock() returns on a majority: the last server's grant may still be on its way, and a rival's
                // attempt that reached that server first would take it there (the floor leaves a minority's
                // grants to their lease), so the rival tries only once every server has granted
                for (RedisServer server : servers) {
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(String.valueOf(server.command("GET", "bench:fenced"))).contains("\t"));
                }
                assertThatThrownBy(() -> second.lock("bench:fenced").lock()).hasMessageContaining("is held");
                held.unlock();
                // the release raised every floor to the quorum's token, the one above the raised floor; it
                // returns once a quorum released, so the last server may still be on its way
                for (RedisServer server : servers) {
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        assertThat(server.command("EXISTS", "bench:fenced")).isEqualTo(0L);
                        assertThat(Long.parseLong(String.valueOf(server.command("GET", "fenced-floor:token-floor"))))
                                .as("floor on %s", server.uri()).isEqualTo(raised + 1);
                    });
                }
                BenchLock next = second.lock("bench:fenced");
                next.lock();
                next.unlock();
                for (RedisServer server : servers) {
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(Long.parseLong(String.valueOf(server.command("GET", "fenced-floor:token-floor"))))
                                    .as("floor on %s", server.uri()).isGreaterThan(raised + 1));
                }
            }
        } finally {
            servers.forEach(RedisServer::close);
        }
    }
}
