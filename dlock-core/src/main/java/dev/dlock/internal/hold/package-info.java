/**
 * Holds and what keeps them: a granted acquisition as the client tracks it
 * ({@link dev.dlock.internal.hold.Hold}) and their registry, the watchdog that renews them, the
 * renewal after a short handover, the loss reports to listeners, the client's identity and its
 * record in the store. Tells observers through {@link dev.dlock.internal.hold.HoldEvents}.
 *
 * <p>May use the store SPI and the settings.
 */
package dev.dlock.internal.hold;
