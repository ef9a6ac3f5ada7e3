/**
 * Everything a client is configured with and every tunable derived from it, in one place
 * ({@link dev.dlock.internal.settings.Settings}): defaults, limits, the checks of the options
 * ({@code Validation}), and the client's clock and timer ({@code Ticker}).
 *
 * <p>Uses no other internal package.
 */
package dev.dlock.internal.settings;
