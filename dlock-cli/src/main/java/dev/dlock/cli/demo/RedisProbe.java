package dev.dlock.cli.demo;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Asks a host:port whether a Redis answers there, with a PING and a short timeout. */
final class RedisProbe {

    private RedisProbe() {
    }

    static boolean answersPing(String host, int port, Duration timeout) {
        RedisURI uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(timeout).build();
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return "PONG".equals(connection.sync().ping());
        } catch (RedisException e) {
            // refused, timed out, or a Redis that wants a password (NOAUTH): not usable without one
            return false;
        } finally {
            client.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }
}
