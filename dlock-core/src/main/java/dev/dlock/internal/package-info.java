/**
 * The engine of a client: {@link dev.dlock.internal.LockEngine} wires one client's pieces (the
 * store its builder chose, the wake-ups, the watchdog, the holds, the local handoff, the observers)
 * and starts acquisitions; {@code HoldFiling} and {@code HoldReleases} file a grant as a hold and
 * give it back; {@code Callbacks} completes the futures the application sees; {@code PermitGates}
 * admits a client's acquires to its semaphores.
 *
 * <p>May use every internal package but the backends' ({@code redis}, {@code lettuce},
 * {@code memory}, {@code postgres}, {@code zookeeper}): a backend reaches the engine only as a
 * {@link dev.dlock.internal.store.StoreFactory}, chosen by the builder. Never names the lock kinds
 * ({@code dev.dlock.internal.kinds}), which are built on it. Nothing here is API.
 */
package dev.dlock.internal;
