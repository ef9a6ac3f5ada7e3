/**
 * The Redis backend's lock logic: the stores on one Redis ({@code SingleNodeStore}: standalone,
 * Sentinel's master, a Cluster) and on a Redlock quorum ({@code QuorumStore}, {@code Quorum}), the
 * Lua scripts (one {@code .lua} resource each under {@code scripts/}) and the calls that run them
 * ({@code KindScripts}, {@code Scripts}), token floors, replies, and the narrow view of one server
 * they run on ({@link dev.dlock.internal.redis.RedisNode}).
 *
 * <p>May use the store SPI and the settings. Knows no client library: the Lettuce adapter
 * ({@code dev.dlock.internal.lettuce}) implements {@code RedisNode}.
 */
package dev.dlock.internal.redis;
