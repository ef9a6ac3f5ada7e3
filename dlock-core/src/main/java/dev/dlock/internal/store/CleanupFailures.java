package dev.dlock.internal.store;

import org.slf4j.Logger;

/**
 * Best-effort cleanups (an abandon after an acquire whose outcome is unknown, a hold given back at
 * close, a waiter leaving a queue) that one server did not answer, told once per outage: a WARN at
 * the first, a count when the server answers again. During an outage every failed acquire leaves
 * such a cleanup behind, and a line each would bury the log; none of them needs the operator, since
 * leases and deadlines free what they would have freed.
 */
public final class CleanupFailures {
    private final Logger log;
    private final String address;
    private boolean failing;
    private long failures;

    public CleanupFailures(Logger log, String address) {
        this.log = log;
        this.address = address;
    }

    /** A cleanup on the lock failed. */
    public void failed(String what, String lockName, Throwable error) {
        boolean first;
        long count;
        synchronized (this) {
            first = !failing;
            failing = true;
            count = ++failures;
        }
        if (first) {
            log.warn("could not {} lock '{}' on {} ({}); its lease or deadline frees it. Cleanups that fail until {}"
                    + " answers again are not logged one by one", what, lockName, address, error, address);
        } else if (log.isDebugEnabled()) {
            log.debug("could not {} lock '{}' on {} (cleanup failure {} of this outage): {}", what, lockName, address,
                    count, error.toString());
        }
    }

    /** The server answered a call: an outage, if there was one, is over. */
    public void answered() {
        long count;
        synchronized (this) {
            if (!failing) {
                return;
            }
            failing = false;
            count = failures;
            failures = 0;
        }
        log.warn("{} answers again; {} best-effort cleanup(s) failed while it did not, left to leases and deadlines",
                address, count);
    }
}
