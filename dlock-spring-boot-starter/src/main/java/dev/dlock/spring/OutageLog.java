package dev.dlock.spring;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import java.time.Duration;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Redis failing did to {@link WithLock @WithLock} calls, told once per outage: a WARN at the
 * first call skipped, failed or release left to its lease, counts when Redis answers again. A job
 * that ticks every second through a 30 s outage gets two lines, not thirty stack traces; so do
 * web requests that answer {@code 503} meanwhile.
 */
final class OutageLog {
    private static final Logger log = LoggerFactory.getLogger(WithLockInterceptor.class);
    private static final String COUNTED = " Until Redis answers again, @WithLock calls skipped or failed and releases"
            + " left to their leases are counted, not logged one by one.";

    private enum Effect { SKIPPED, FAILED, UNRELEASED }

    private volatile boolean failing;
    private long startNanos;
    private final long[] counts = new long[Effect.values().length];

    /**
     * Whether the failure is a refusal no retry mends (PostgreSQL's wrong credentials, a missing
     * privilege or schema: {@link NodeError.Cause#REFUSED}): a configuration error to throw, never
     * an outage to skip quietly.
     */
    static boolean isRefusal(LockBackendException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LockBackendException backend
                    && backend.nodeErrors().stream().anyMatch(error -> error.cause() == NodeError.Cause.REFUSED)) {
                return true;
            }
        }
        return false;
    }

    /** A call was not made because Redis failed while it took the lock. */
    void skipped(String method, String lockName, LockBackendException failure) {
        if (begin(Effect.SKIPPED)) {
            log.warn("Redis failed while {} took lock '{}', so it was skipped (onOutage SKIP): {}.{}", method, lockName,
                    failure.getMessage(), COUNTED);
        } else {
            log.debug("{} skipped, Redis failing: {}", method, failure.getMessage());
        }
    }

    /**
     * A call was not made and throws the failure to its caller (a web request answers 503), who
     * is told; the log is told once per outage, not with a stack trace per call.
     */
    void failed(String method, String lockName, LockBackendException failure) {
        if (begin(Effect.FAILED)) {
            log.warn("Redis failed while {} took lock '{}', so the call failed with LockBackendException (onOutage THROW;"
                    + " a web request answers 503): {}.{}", method, lockName, failure.getMessage(), COUNTED);
        } else {
            log.debug("{} failed, Redis failing: {}", method, failure.getMessage());
        }
    }

    /** Releasing a hold failed; the lock frees itself when its lease ends. */
    void releaseFailed(String lockName, LockBackendException failure) {
        if (begin(Effect.UNRELEASED)) {
            log.warn("releasing lock '{}' failed, it expires with its lease: {}.{}", lockName, failure.getMessage(), COUNTED);
        } else {
            log.debug("releasing lock '{}' failed, it expires with its lease: {}", lockName, failure.getMessage());
        }
    }

    /** True for the first failure of an outage. */
    private synchronized boolean begin(Effect effect) {
        boolean first = !failing;
        if (first) {
            failing = true;
            startNanos = System.nanoTime();
        }
        counts[effect.ordinal()]++;
        return first;
    }

    /** Redis answered an acquire: the outage, if there was one, is over. */
    void answered() {
        if (!failing) {
            return;
        }
        long[] seen;
        long nanos;
        synchronized (this) {
            if (!failing) {
                return;
            }
            failing = false;
            seen = counts.clone();
            nanos = System.nanoTime() - startNanos;
            Arrays.fill(counts, 0);
        }
        log.info("Redis answers @WithLock again, {} s after the first failure: {} call(s) skipped, {} call(s) failed,"
                + " {} release(s) left to their leases meanwhile", Duration.ofNanos(nanos).toSeconds(),
                seen[Effect.SKIPPED.ordinal()], seen[Effect.FAILED.ordinal()], seen[Effect.UNRELEASED.ordinal()]);
    }
}
