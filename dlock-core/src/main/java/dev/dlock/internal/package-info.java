/**
 * The engine of a client and the lock types behind the API: {@link dev.dlock.internal.LockEngine}
 * wires one client's pieces (the store its builder chose, the wake-ups, the watchdog, the holds,
 * the local handoff, the observers) and starts acquisitions; the lock types ({@code StoreLock},
 * {@code StoreSemaphore}, {@code StoreMultiLock}, {@code StoreReadWriteLock}) and the handles turn
 * the API's calls into acquisitions and releases.
 *
 * <p>May use every internal package but the backends' ({@code redis}, {@code lettuce},
 * {@code memory}, {@code postgres}): a backend reaches the engine only as a
 * {@link dev.dlock.internal.store.StoreFactory}, chosen by the builder. Nothing here is API.
 */
package dev.dlock.internal;
