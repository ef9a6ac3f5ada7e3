package dev.dlock.bench;

import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The path between the contenders and the redis-servers of a run: straight over loopback, or,
 * with {@code --rtt}, through a {@link DelayRelay} per server that adds half the round trip in each
 * direction. The run's own bookkeeping (FLUSHALL, INFO, the many-held sampler) goes straight.
 */
public final class Network implements AutoCloseable {

    /** PINGs timed to report the round trip the contenders see. */
    static final int PINGS = 2_000;

    /** What the report says about the network: the round trip asked for and the one measured. */
    public record Facts(Duration rtt, double pingP50Micros, double pingP99Micros) {
        public static final Facts LOOPBACK = new Facts(Duration.ZERO, Double.NaN, Double.NaN);

        public boolean relayed() {
            return !rtt.isZero();
        }
    }

    private final Duration rtt;
    private final Map<RedisServer, DelayRelay> relays = new IdentityHashMap<>();

    /** @param rtt the round trip to add; zero for none */
    Network(Duration rtt) {
        this.rtt = rtt;
    }

    /** The URI a contender connects to for this server: the server's, or its relay's. */
    String uriOf(RedisServer server) {
        if (rtt.isZero()) {
            return server.uri();
        }
        return relays.computeIfAbsent(server, s -> new DelayRelay(s.host(), s.port(), rtt.dividedBy(2))).uri();
    }

    /** PING p50 and p99 as a contender of this run sees them on {@code server} (after 500 unmeasured ones). */
    public Facts measure(RedisServer server) {
        RedisClient client = RedisClient.create(uriOf(server));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            for (int i = 0; i < 500; i++) {
                commands.ping();
            }
            Samples samples = new Samples();
            for (int i = 0; i < PINGS; i++) {
                long start = System.nanoTime();
                commands.ping();
                samples.add(System.nanoTime() - start);
            }
            long[] sorted = Samples.sorted(List.of(samples));
            return new Facts(rtt, Samples.percentileMicros(sorted, 50), Samples.percentileMicros(sorted, 99));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    @Override
    public void close() {
        new ArrayList<>(relays.values()).forEach(DelayRelay::close);
        relays.clear();
    }
}
