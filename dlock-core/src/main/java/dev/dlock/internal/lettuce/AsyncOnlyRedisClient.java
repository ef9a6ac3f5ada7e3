package dev.dlock.internal.lettuce;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReactiveCommandsImpl;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.RedisPubSubReactiveCommandsImpl;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;

/**
 * A Lettuce client whose connections offer only the asynchronous API, the one {@link LettuceNode}
 * uses. Lettuce builds a connection's synchronous API (a dynamic proxy of an interface of several
 * hundred methods, generated at run time) and its reactive API as soon as the connection is made:
 * on the first connections of a process that is a large share of the start-up of a short-lived
 * one such as the {@code dlock} command, and no class data sharing archive can hold a generated
 * proxy. {@code sync()} and {@code reactive()} of these connections return null.
 */
public final class AsyncOnlyRedisClient extends RedisClient {

    public AsyncOnlyRedisClient(ClientResources resources, RedisURI uri) {
        super(resources, uri);
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(RedisChannelWriter writer,
            PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
        return new StatefulRedisConnectionImpl<>(writer, pushHandler, codec, timeout) {
            @Override
            protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
                return null;
            }

            @Override
            protected RedisReactiveCommandsImpl<K, V> newRedisReactiveCommandsImpl() {
                return null;
            }
        };
    }

    @Override
    protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(
            PubSubEndpoint<K, V> endpoint, RedisChannelWriter writer, RedisCodec<K, V> codec, Duration timeout) {
        return new StatefulRedisPubSubConnectionImpl<>(endpoint, writer, codec, timeout) {
            @Override
            protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
                return null;
            }

            @Override
            protected RedisPubSubReactiveCommandsImpl<K, V> newRedisReactiveCommandsImpl() {
                return null;
            }
        };
    }
}
