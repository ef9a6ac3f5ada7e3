package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the builder accepts as a Redis URL, and an application's own Lettuce resources. */
class ClientBuilderTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @Test
    void aRedisUriWithoutSchemeIsRefusedNamingTheValueFirst() {
        assertThatThrownBy(() -> LockClient.builder().redisUri("localhost:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'localhost:6379' is not a Redis URL")
                .hasMessageContaining("expected redis://");
    }

    @Test
    void aPortThatIsNotANumberIsRefusedBeforeAnyConnectAttempt() {
        assertThatThrownBy(() -> LockClient.builder().redisUri("redis://127.0.0.1:notaport"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'redis://127.0.0.1:notaport' is not a Redis URL: no host, or a port that is not a number");
    }

    @Test
    void anotherSchemeIsRefused() {
        assertThatThrownBy(() -> LockClient.builder().redisUri("http://example"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'http://example' is not a Redis URL");
    }

    @Test
    void aSentinelUrlIsAcceptedWhenEverySentinelIsHostPortAndTheMasterIsNamed() {
        LockClient.builder().redisUri("redis-sentinel://secret@s1:26379,s2:26380,s3?sentinelMasterId=orders");
        LockClient.builder().redisUri("rediss-sentinel://s1:26379/2?sentinelMasterId=orders");
        // Lettuce's own form names the master in the fragment
        LockClient.builder().redisUri("redis-sentinel://h1:26379,h2:26379#mymaster");
        LockClient.builder().redisUri("redis-sentinel://secret@h1:26379,h2/3#mymaster");
        assertThatThrownBy(() -> LockClient.builder().redisUri("redis-sentinel://h1:26379,h2:26379#"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs ?sentinelMasterId=NAME or #NAME");
        assertThatThrownBy(() -> LockClient.builder().redisUri("redis-sentinel://s1:26379,s2:26379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs ?sentinelMasterId=NAME");
        assertThatThrownBy(() -> LockClient.builder().redisUri("redis-sentinel://s1:26379,:x?sentinelMasterId=orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinel ':x' is not host[:port]");
    }

    @Test
    void redlockNodesAreCheckedLikeRedisUriAndMustBeDistinctServers() {
        assertThatThrownBy(() -> LockClient.builder().redlockNodes("redis://a:1", "redis://b:1", "c:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("redlockNodes: 'c:1' is not a Redis URL");
        assertThatThrownBy(() -> LockClient.builder().redlockNodes("redis://a", "redis://A:6379", "redis://b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("redlockNodes must be distinct servers");
    }

    @Test
    void theApplicationsClientResourcesOutliveTheClientAndServeTheNextOne() {
        ClientResources resources = DefaultClientResources.create();
        try {
            for (int client = 0; client < 2; client++) {
                try (LockClient lockClient = LockClient.builder().redisUri(redis.server().uri())
                        .clientResources(resources).build()) {
                    DistributedLock lock = lockClient.getLock("shared-resources");
                    assertThat(lock.tryLock()).isTrue();
                    lock.unlock();
                }
                assertThat(resources.eventExecutorGroup().isShuttingDown()).as("after client " + client).isFalse();
            }
        } finally {
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void clientResourcesAreSetOnce() {
        ClientResources resources = DefaultClientResources.create();
        try {
            assertThatThrownBy(() -> LockClient.builder().clientResources(resources).clientResources(resources))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> LockClient.builder().clientResources(null))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            resources.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClosedClientRefusesToListLocksSayingItIsClosed() {
        LockClient client = LockClient.builder().redisUri(redis.server().uri()).build();
        client.close();
        assertThatThrownBy(() -> client.listLocks("*"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the LockClient is closed");
    }

    @Test
    void inMemoryExcludesEveryRedisOption() {
        assertThatThrownBy(() -> LockClient.builder().inMemory().redisUri("redis://h:6379").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inMemory excludes redisUri, redlockNodes, clusterNodes and replicaAcks");
        assertThatThrownBy(() -> LockClient.builder().clusterNodes("redis://h:7000").inMemory().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("inMemory excludes");
        assertThatThrownBy(() -> LockClient.builder().inMemory().inMemory()).isInstanceOf(IllegalStateException.class);
        try (LockClient client = LockClient.builder().inMemory().build()) {
            assertThat(client.address()).isEqualTo("memory (this JVM only)");
        }
    }
}
