/**
 * What operators and observers see: the events of a client turned into the observers' calls
 * ({@code LockEvents}, guarded so that an observer cannot break a lock), the slow-lock warnings,
 * and the inspection and listing of locks ({@code LockInspector}).
 *
 * <p>May use holds, the store SPI and the settings.
 */
package dev.dlock.internal.observe;
