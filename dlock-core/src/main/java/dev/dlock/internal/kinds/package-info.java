/**
 * The lock kinds as the API sees them: {@code StoreLock} (reentrant and fair),
 * {@code StoreReadWriteLock}, {@code StoreSemaphore} and {@code StoreMultiLock} implement the API's
 * lock types, and their handles ({@code Handle}, {@code PermitHandle}, {@code MultiHandle}, sharing
 * {@code ReleaseOnceHandle}) the API's {@code LockHandle}; they turn the API's calls into the
 * engine's acquisitions and releases.
 *
 * <p>Built by {@code dev.dlock.LockClient} alone; uses the engine ({@code dev.dlock.internal}) and
 * the packages below it, never a backend's. No other internal package names a kind. Nothing here
 * is API.
 */
package dev.dlock.internal.kinds;
