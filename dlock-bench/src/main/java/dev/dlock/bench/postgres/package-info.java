/**
 * dlock on PostgreSQL beside Spring Integration's {@code JdbcLockRegistry} and a raw floor, on a
 * PostgreSQL server the run starts ({@link dev.dlock.bench.postgres.PostgresBench}): not part of the
 * default plan, which measures Redis.
 */
package dev.dlock.bench.postgres;
