package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.testing.RedisServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The builder and the store values: what {@link RedisStore} accepts as a Redis URL, its own options, the required store. */
class ClientBuilderTest {

    @RegisterExtension
    static final RedisServers redis = RedisServers.standalone();

    @Test
    void aRedisUriWithoutSchemeIsRefusedNamingTheValueFirst() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("localhost:6379")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'localhost:6379' is not a Redis URL")
                .hasMessageContaining("expected redis://");
    }

    @Test
    void aPortThatIsNotANumberIsRefusedBeforeAnyConnectAttempt() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("redis://127.0.0.1:notaport")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'redis://127.0.0.1:notaport' is not a Redis URL: no host, or a port that is not a number");
    }

    @Test
    void anotherSchemeIsRefused() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("http://example")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'http://example' is not a Redis URL");
    }

    @Test
    void aSentinelUrlIsAcceptedWhenEverySentinelIsHostPortAndTheMasterIsNamed() {
        LockClient.builder().store(RedisStore.standalone("redis-sentinel://secret@s1:26379,s2:26380,s3?sentinelMasterId=orders"));
        LockClient.builder().store(RedisStore.standalone("rediss-sentinel://s1:26379/2?sentinelMasterId=orders"));
        // Lettuce's own form names the master in the fragment
        LockClient.builder().store(RedisStore.standalone("redis-sentinel://h1:26379,h2:26379#mymaster"));
        LockClient.builder().store(RedisStore.standalone("redis-sentinel://secret@h1:26379,h2/3#mymaster"));
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("redis-sentinel://h1:26379,h2:26379#")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs ?sentinelMasterId=NAME or #NAME");
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("redis-sentinel://s1:26379,s2:26379")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs ?sentinelMasterId=NAME");
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("redis-sentinel://s1:26379,:x?sentinelMasterId=orders")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinel ':x' is not host[:port]");
    }

    @Test
    void redlockNodesAreCheckedLikeRedisUriAndMustBeDistinctServers() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.redlock("redis://a:1", "redis://b:1", "c:1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("RedisStore.redlock: 'c:1' is not a Redis URL");
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.redlock("redis://a", "redis://A:6379", "redis://b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("RedisStore.redlock needs distinct servers");
    }

    @Test
    void theApplicationsClientResourcesOutliveTheClientAndServeTheNextOne() {
        ClientResources resources = DefaultClientResources.create();
        try {
            for (int client = 0; client < 2; client++) {
                try (LockClient lockClient = LockClient.builder().store(RedisStore.standalone(redis.server().uri())
                        .clientResources(resources)).build()) {
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
    void clientResourcesMustNotBeNullAndAStoreValueIsImmutable() {
        RedisStore store = RedisStore.standalone("redis://h:6379");
        assertThatThrownBy(() -> store.clientResources(null)).isInstanceOf(IllegalArgumentException.class);
        RedisStore acked = store.replicaAcks(1, java.time.Duration.ofMillis(50));
        assertThat(acked).isNotSameAs(store);
        assertThat(store.toString()).doesNotContain("replicaAcks");
        assertThat(acked.toString()).contains("replicaAcks 1 within 50 ms");
    }

    @Test
    void eachStoreOptionIsRefusedWhereItDoesNotApplyNamingTheStore() {
        assertThatThrownBy(() -> RedisStore.standalone("redis://h:6379").nodeTimeout(java.time.Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodeTimeout is for Redlock").hasMessageContaining("RedisStore.standalone");
        assertThatThrownBy(() -> RedisStore.redlock("redis://a", "redis://b", "redis://c").replicaAcks(1, java.time.Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAcks is for one Redis").hasMessageContaining("RedisStore.redlock");
        assertThatThrownBy(() -> RedisStore.redlock("redis://a", "redis://b", "redis://c").nodeTimeout(java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeTimeout must be at least 1 ms, got PT0S");
    }

    @Test
    void aBuilderWithoutAStoreRefusesToBuildNamingStore() {
        assertThatThrownBy(() -> LockClient.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("no store: call store(...) with RedisStore.standalone(uri)")
                .hasMessageContaining("Store.inMemory()");
        assertThatThrownBy(() -> LockClient.builder().store(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockClient.create(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKeyPrefixWithBracesIsARedisMatterRefusedAtBuildAndFineInMemory() {
        assertThatThrownBy(() -> LockClient.builder().store(RedisStore.standalone("redis://h:6379")).keyPrefix("a{b}:").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix 'a{b}:' cannot be used with RedisStore");
        try (LockClient client = LockClient.builder().store(Store.inMemory()).keyPrefix("a{b}:").build()) {
            assertThat(client.getLock("x").tryLock()).isTrue();
            client.getLock("x").unlock();
        }
    }

    @Test
    void aClosedClientRefusesToListLocksSayingItIsClosed() {
        LockClient client = LockClient.builder().store(RedisStore.standalone(redis.server().uri())).build();
        client.close();
        assertThatThrownBy(() -> client.listLocks("*"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the LockClient is closed");
    }

    @Test
    void oneStorePerBuilder() {
        assertThatThrownBy(() -> LockClient.builder().store(Store.inMemory()).store(RedisStore.standalone("redis://h:6379")))
                .isInstanceOf(IllegalStateException.class).hasMessage("store was set already");
        try (LockClient client = LockClient.builder().store(Store.inMemory()).build()) {
            assertThat(client.address()).isEqualTo("memory (this JVM only)");
        }
    }
}
