package dev.dlock.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The demo's own redis-server: the fallback when no Redis is configured or listening. */
class EmbeddedRedisTest {

    @Test
    void startsTheRedisServerOnThePathAndStopsIt() {
        assertStartsAnswersAndStops(EmbeddedRedis.start());
    }

    @Test
    void startsTheBundledRedisServerAndStopsIt() {
        EmbeddedRedis redis = EmbeddedRedis.startBundled();
        assertThat(redis.description()).startsWith("redis-server 7.0.15 (bundled) on 127.0.0.1:");
        assertStartsAnswersAndStops(redis);
    }

    @Test
    void hidesPasswordsWhenItSaysWhichRedisItUses() {
        assertThat(RedisForDemo.withoutPassword("redis://user:secret@host:6380/0")).doesNotContain("secret")
                .startsWith("redis://user:").contains("@host:6380");
        assertThat(RedisForDemo.withoutPassword("rediss://secret@host")).doesNotContain("secret").startsWith("rediss://");
        assertThat(RedisForDemo.withoutPassword("redis://127.0.0.1:6380")).isEqualTo("redis://127.0.0.1:6380");
    }

    private static void assertStartsAnswersAndStops(EmbeddedRedis redis) {
        int port = Integer.parseInt(redis.url().substring(redis.url().lastIndexOf(':') + 1));
        try {
            assertThat(RedisProbe.answersPing("127.0.0.1", port, Duration.ofSeconds(1))).isTrue();
        } finally {
            redis.close();
        }
        assertThat(RedisProbe.answersPing("127.0.0.1", port, Duration.ofMillis(300))).isFalse();
    }
}
