package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.LockClient;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** How spring.data.redis.* becomes a dlock address (no Redis needed: only the URLs are built). */
class RedisAddressTest {

    private static RedisAddress of(String... properties) {
        MockEnvironment environment = new MockEnvironment();
        for (String property : properties) {
            int eq = property.indexOf('=');
            environment.setProperty(property.substring(0, eq), property.substring(eq + 1));
        }
        return RedisAddress.of(new DlockProperties(), environment);
    }

    @Test
    void defaultsAreSpringBootsLocalhost() {
        assertThat(of().redisUri()).isEqualTo("redis://localhost:6379");
    }

    @Test
    void hostPortCredentialsDatabaseAndSsl() {
        RedisAddress address = of("spring.data.redis.host=cache.internal", "spring.data.redis.port=6380",
                "spring.data.redis.username=app", "spring.data.redis.password=p@ss word", "spring.data.redis.database=2",
                "spring.data.redis.ssl.enabled=true");
        assertThat(address.redisUri()).isEqualTo("rediss://app:p%40ss%20word@cache.internal:6380/2");
        assertThat(address.describe()).isEqualTo("rediss://cache.internal:6380/2 (from spring.data.redis.host/port)");
    }

    @Test
    void sentinelMasterAndNodes() {
        assertThat(of("spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=s1:26379, s2:26380",
                "spring.data.redis.password=secret").redisUri())
                .isEqualTo("redis-sentinel://:secret@s1:26379,s2:26380/0?sentinelMasterId=mymaster");
    }

    @Test
    void lettucesSentinelFormInTheRedisUriIsTaken() {
        DlockProperties dlock = new DlockProperties();
        dlock.getRedis().setUrl("redis-sentinel://secret@h1:26379,h2:26379#mymaster");
        RedisAddress address = RedisAddress.of(dlock, new MockEnvironment());
        // RedisStore checks the URL as it is made: Lettuce's form, the master named in the fragment, passes
        address.store();
        assertThat(address.describe()).isEqualTo("redis-sentinel://h1:26379,h2:26379#mymaster (from dlock.redis.url)");
    }

    @Test
    void clusterNodes() {
        RedisAddress address = of("spring.data.redis.cluster.nodes=a:7000,b:7001");
        assertThat(address.redisUri()).isNull();
        assertThat(address.clusterNodes()).isEqualTo(List.of("redis://a:7000", "redis://b:7001"));
    }

    @Test
    void urlWinsOverHostAndPort() {
        assertThat(of("spring.data.redis.url=redis://u:p@h:1/1", "spring.data.redis.host=other").redisUri())
                .isEqualTo("redis://u:p@h:1/1");
    }

    @Test
    void dlockRedisUriWinsOverSpringDataRedis() {
        DlockProperties dlock = new DlockProperties();
        dlock.getRedis().setUrl("redis://locks:6379");
        MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.host", "cache");
        assertThat(RedisAddress.of(dlock, environment).redisUri()).isEqualTo("redis://locks:6379");
    }
}
