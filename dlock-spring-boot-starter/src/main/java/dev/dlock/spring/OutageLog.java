package dev.dlock.spring;

import dev.dlock.LockBackendException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Redis failing did to {@link WithLock @WithLock} calls, told once per outage: a WARN at the
 * first call skipped (or release left to its lease), counts when Redis answers again. A job that
 * ticks every second through a 30 s outage gets two lines, not thirty stack traces.
 */
final class OutageLog {
    private static final Logger log = LoggerFactory.getLogger(WithLockInterceptor.class);
    private static final String COUNTED = " Until Redis answers again, @WithLock calls skipped and releases left to"
            + " their leases are counted, not logged one by one.";

    private volatile boolean failing;
    private long startNanos;
    private long skipped;
    private long unreleased;

    /** A call was not made because Redis failed while it took the lock. */
    void skipped(String method, String lockName, LockBackendException failure) {
        if (begin(true)) {
            log.warn("Redis failed while {} took lock '{}', so it was skipped (onOutage SKIP): {}.{}", method, lockName,
                    failure.getMessage(), COUNTED);
        } else {
            log.debug("{} skipped, Redis failing: {}", method, failure.getMessage());
        }
    }

    /** Releasing a hold failed; the lock frees itself when its lease ends. */
    void releaseFailed(String lockName, LockBackendException failure) {
        if (begin(false)) {
            log.warn("releasing lock '{}' failed, it expires with its lease: {}.{}", lockName, failure.getMessage(), COUNTED);
        } else {
            log.debug("releasing lock '{}' failed, it expires with its lease: {}", lockName, failure.getMessage());
        }
    }

    /** True for the first failure of an outage. */
    private synchronized boolean begin(boolean skip) {
        boolean first = !failing;
        if (first) {
            failing = true;
            startNanos = System.nanoTime();
        }
        if (skip) {
            skipped++;
        } else {
            unreleased++;
        }
        return first;
    }

    /** Redis answered an acquire: the outage, if there was one, is over. */
    void answered() {
        if (!failing) {
            return;
        }
        long skips;
        long releases;
        long nanos;
        synchronized (this) {
            if (!failing) {
                return;
            }
            failing = false;
            skips = skipped;
            releases = unreleased;
            nanos = System.nanoTime() - startNanos;
            skipped = 0;
            unreleased = 0;
        }
        log.info("Redis answers @WithLock again, {} s after the first failure: {} call(s) skipped, {} release(s) left"
                + " to their leases meanwhile", Duration.ofNanos(nanos).toSeconds(), skips, releases);
    }
}
