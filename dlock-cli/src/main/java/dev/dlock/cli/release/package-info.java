/**
 * {@code dlock release --force NAME}: releases a lock whoever holds it.
 */
package dev.dlock.cli.release;
