package dev.dlock.internal.store;

import java.util.List;

/**
 * What a client writes of itself, so that an inspection can say who holds a lock: its name, host
 * and pid, and the names of its threads that took locks. The record lives {@code ttlMs} after each
 * write.
 *
 * @param replace false: add these threads to the record; true: the record names these threads only
 * @param threads thread id (base 36), thread name, thread id, thread name, ...
 */
public record ClientRecordEntry(String clientId, String clientName, String host, long pid, long ttlMs,
                                boolean replace, List<String> threads) {
}
