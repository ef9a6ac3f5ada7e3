package dev.dlock;

/**
 * Who holds a lock, as recorded in the store at acquisition: the client name given to
 * {@link LockClientBuilder#clientName(String)}, host name, process id and thread name (for a
 * handle acquired with the async API, the thread that asked).
 *
 * @param clientName the holder's client name
 * @param host       the host name of the holder's machine
 * @param pid        the holder's process id
 * @param thread     the name of the thread that acquired the lock
 */
public record LockHolder(String clientName, String host, long pid, String thread) {

    /**
     * The holder in one line, as the CLI shows it.
     *
     * @return e.g. {@code billing@host-1 pid 4242 thread main}
     */
    @Override
    public String toString() {
        return clientName + "@" + host + " pid " + pid + " thread " + thread;
    }
}
