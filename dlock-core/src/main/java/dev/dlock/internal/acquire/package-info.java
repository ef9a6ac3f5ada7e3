/**
 * The acquire loop ({@link dev.dlock.internal.acquire.Acquisition}: attempt, reply, wait) and what
 * it waits with: the shared subscriptions ({@code WakeUps}, {@code ChannelWatch}), the queue place
 * of queued kinds ({@code QueuePlace}), the retry delays and outage budget, and the handoff between
 * the threads of one client ({@code LocalHandoff}, {@code ParkedWaiters}, {@code LocalPark}).
 *
 * <p>May use the store SPI, holds, observers and settings; never a backend (checked by
 * {@code ArchitectureTest}).
 */
package dev.dlock.internal.acquire;
