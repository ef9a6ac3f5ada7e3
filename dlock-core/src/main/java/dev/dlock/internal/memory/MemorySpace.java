package dev.dlock.internal.memory;

import dev.dlock.LockHolder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The locks of one JVM kept in memory, shared by every in-memory client of it (as clients of one
 * Redis share it): the locks by key, the client records, the fencing token counter and the
 * channels. Everything is guarded by this object's monitor; messages are handed to the
 * subscribers' own threads, never delivered under it.
 */
public final class MemorySpace {

    private final Map<String, MemoryLock> locks = new HashMap<>();
    private final Map<String, Record> records = new HashMap<>();
    private final Map<String, Set<MemoryWakeUps>> channels = new ConcurrentHashMap<>();
    private long lastToken;

    /** A client's record: its description, its threads' names by thread id, and when it lapses. */
    public record Record(String name, String host, long pid, Map<String, String> threads, long endNanos) {
    }

    /** The lock of the key, created empty when there is none; call under this monitor. */
    public MemoryLock lock(String key) {
        return locks.computeIfAbsent(key, k -> new MemoryLock());
    }

    /** The lock of the key as of {@code now}, or null when there is nothing of it; call under this monitor. */
    public MemoryLock existing(String key, long now) {
        MemoryLock lock = locks.get(key);
        if (lock != null) {
            lock.expire(now);
            if (lock.isEmpty()) {
                locks.remove(key);
                return null;
            }
        }
        return lock;
    }

    /** Forgets the lock of the key when nothing is left of it; call under this monitor. */
    public void tidy(String key) {
        MemoryLock lock = locks.get(key);
        if (lock != null && lock.isEmpty()) {
            locks.remove(key);
        }
    }

    /** Every key with something left of it as of {@code now}; call under this monitor. */
    public List<String> keys(long now) {
        for (String key : new ArrayList<>(locks.keySet())) {
            existing(key, now);
        }
        return new ArrayList<>(locks.keySet());
    }

    /**
     * A fencing token above every token handed out before in this JVM, and at least the wall clock
     * in µs (so that how long a hold lasted reads as on Redis); call under this monitor.
     */
    public long nextToken() {
        lastToken = Math.max(lastToken + 1, System.currentTimeMillis() * 1000);
        return lastToken;
    }

    public void writeRecord(String key, String name, String host, long pid, boolean replace, List<String> threads, long endNanos) {
        synchronized (this) {
            Record old = records.get(key);
            Map<String, String> names = new LinkedHashMap<>();
            if (old != null && !replace && old.endNanos() - System.nanoTime() > 0) {
                names.putAll(old.threads());
            }
            for (int i = 0; i + 1 < threads.size(); i += 2) {
                names.put(threads.get(i), threads.get(i + 1));
            }
            records.put(key, new Record(name, host, pid, names,
                    old == null ? endNanos : Math.max(endNanos, old.endNanos())));
        }
    }

    public synchronized void dropRecord(String key) {
        records.remove(key);
    }

    public synchronized Optional<LockHolder> readRecord(String key, String threadId) {
        Record record = records.get(key);
        if (record == null || record.endNanos() - System.nanoTime() <= 0) {
            records.remove(key);
            return Optional.empty();
        }
        return Optional.of(new LockHolder(record.name(), record.host(), record.pid(),
                record.threads().getOrDefault(threadId, threadId)));
    }

    public void subscribe(String channel, MemoryWakeUps subscriber) {
        channels.computeIfAbsent(channel, name -> ConcurrentHashMap.newKeySet()).add(subscriber);
    }

    public void unsubscribe(String channel, MemoryWakeUps subscriber) {
        channels.computeIfPresent(channel, (name, subscribers) -> {
            subscribers.remove(subscriber);
            return subscribers.isEmpty() ? null : subscribers;
        });
    }

    /** Clients subscribed to the channel. */
    public long subscribers(String channel) {
        Set<MemoryWakeUps> subscribers = channels.get(channel);
        return subscribers == null ? 0 : subscribers.size();
    }

    /** Hands the message to every subscriber of the channel, each on its own thread. */
    public void publish(String channel, String message) {
        Set<MemoryWakeUps> subscribers = channels.get(channel);
        if (subscribers != null) {
            subscribers.forEach(subscriber -> subscriber.deliver(channel, message));
        }
    }
}
