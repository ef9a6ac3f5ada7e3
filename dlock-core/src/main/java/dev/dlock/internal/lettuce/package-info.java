/**
 * The Lettuce adapter: connections to one server, a Cluster or Sentinels' master as
 * {@link dev.dlock.internal.redis.RedisNode}s, Lettuce's errors in dlock's terms, the checks made at
 * connect (persistence, eviction, refused commands, ACL), and
 * {@link dev.dlock.internal.lettuce.RedisStores}, the Redis backend's factory, which connects.
 *
 * <p>The only package besides {@code redis} that may use Lettuce (checked by {@code ArchitectureTest});
 * may use the Redis stores, the store SPI and the settings.
 */
package dev.dlock.internal.lettuce;
