package dev.dlock;

/**
 * Who holds a lock, as recorded in Redis at acquisition: the client name given to
 * {@link LockClient.Builder#clientName(String)}, host name, process id and thread name (for a
 * handle acquired with the async API, the thread that asked).
 */
public record LockHolder(String clientName, String host, long pid, String thread) {

    @Override
    public String toString() {
        return clientName + "@" + host + " pid " + pid + " thread " + thread;
    }
}
