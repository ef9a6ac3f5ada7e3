/**
 * The in-memory backend ({@code Store.inMemory()}): every lock kind, lease, fencing
 * token, fair queue and loss notice kept in this JVM, shared by its in-memory clients, for tests
 * and local development. {@link dev.dlock.internal.memory.MemoryRules} holds the kinds' rules, the
 * same as the Redis scripts'.
 *
 * <p>May use the store SPI and the settings only.
 */
package dev.dlock.internal.memory;
