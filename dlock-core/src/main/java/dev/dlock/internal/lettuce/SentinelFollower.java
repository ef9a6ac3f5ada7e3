package dev.dlock.internal.lettuce;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves a Sentinel client's links to a new master as soon as the sentinels announce it.
 *
 * <p>Lettuce asks the sentinels for the master's address only when a link reconnects. A master that
 * crashed closes its links, so that happens by itself; but a master that is cut off or stalled
 * (network partition, long pause) keeps them open, and the client would keep sending to it for as
 * long as it is away, never reaching the promoted replica. So this listens for {@code
 * +switch-master} on every sentinel and, when the monitored master changes, drops the links: Lettuce
 * reconnects them through the sentinels, which now name the new master, and resubscribes the
 * pub/sub channels.
 */
public final class SentinelFollower implements AutoCloseable {

    private static final String SWITCH_MASTER = "+switch-master";

    private final List<RedisClient> clients = new ArrayList<>();
    private final List<StatefulRedisPubSubConnection<String, String>> links = new ArrayList<>();

    /**
     * Subscribes to every sentinel that answers now; one that does not is skipped (the others report
     * the same switch, and the client still follows crashes without any of them).
     */
    public SentinelFollower(ClientResources resources, RedisURI sentinelUri, Duration timeout, Runnable onSwitch) {
        String prefix = sentinelUri.getSentinelMasterId() + " ";
        for (RedisURI sentinel : sentinelUri.getSentinels()) {
            RedisURI target = RedisURI.builder(sentinel).withTimeout(timeout).build();
            RedisClient client = RedisClient.create(resources, target);
            clients.add(client);
            try {
                StatefulRedisPubSubConnection<String, String> link = client.connectPubSub();
                link.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        // "<master name> <old ip> <old port> <new ip> <new port>"
                        if (SWITCH_MASTER.equals(channel) && message.startsWith(prefix)) {
                            onSwitch.run();
                        }
                    }
                });
                link.sync().subscribe(SWITCH_MASTER);
                links.add(link);
            } catch (RedisException unreachable) {
                // best effort: see the constructor's comment
            }
        }
    }

    /**
     * Closes the socket under a Lettuce connection without closing the connection, so that its
     * auto-reconnect runs (re-resolving a Sentinel master, resubscribing pub/sub channels). Commands
     * already sent fail or are retried as on any lost connection.
     */
    public static void dropLink(StatefulConnection<?, ?> connection) {
        if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
            return;
        }
        RedisChannelWriter writer = handler.getChannelWriter();
        while (writer instanceof Delegating<?> delegating && delegating.getDelegate() instanceof RedisChannelWriter inner) {
            writer = inner;
        }
        if (writer instanceof DefaultEndpoint endpoint) {
            endpoint.disconnect();
        }
    }

    @Override
    public void close() {
        links.forEach(StatefulRedisPubSubConnection::close);
        clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(1)));
    }
}
