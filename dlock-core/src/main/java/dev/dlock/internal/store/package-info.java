/**
 * The store SPI: where locks live, in the terms of locks. {@link dev.dlock.internal.store.LockStore}
 * (acquire, release, abandon, leave, renew, force-release, inspect, list, waiting count, client
 * record), its {@link dev.dlock.internal.store.WakeUpSource}, the optional
 * {@link dev.dlock.internal.store.StoreHandoff}, the values they exchange
 * ({@link dev.dlock.internal.store.LockTarget}, {@link dev.dlock.internal.store.LockKind},
 * {@link dev.dlock.internal.store.AcquireRequest}, {@link dev.dlock.internal.store.AcquireReply}, ...)
 * and the store failures as users read them ({@link dev.dlock.internal.store.Failures}).
 *
 * <p>A backend registers as a {@link dev.dlock.internal.store.StoreFactory}: the client's builder
 * holds one and the engine opens the store through it. May use the settings and the API's value
 * and exception types; never a backend.
 */
package dev.dlock.internal.store;
