package dev.dlock.internal.store;

import dev.dlock.LockObserver;
import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.settings.Ticker;

/**
 * What a store is opened with.
 *
 * @param settings the client's settings
 * @param ticker   the clock of grant validities and the timer of the client
 * @param observer the client's observers (guarded: they never throw), or null when there is none;
 *                 a store reports each of its server calls to it
 */
public record StoreContext(Settings settings, Ticker ticker, LockObserver observer) {
}
