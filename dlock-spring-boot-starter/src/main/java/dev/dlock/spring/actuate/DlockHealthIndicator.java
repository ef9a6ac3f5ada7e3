package dev.dlock.spring.actuate;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the locks: UP when the store answers a lock read (one round trip on a probe lock that is
 * never taken; over Redlock, a quorum of the masters), with the store's address under
 * {@code redis} or {@code postgresql}, DOWN with the failure otherwise. It tells
 * whether locks can be taken and released; it does not tell whether the watchdog keeps up with
 * renewals (dlock tells that through {@link dev.dlock.LockListener}s, hold by hold).
 *
 * <p>A probe that finds Redis failing is an answer, not an error of the probe: the log gets one
 * WARN line, without a stack trace, at the first DOWN of an outage and one line with the number of
 * DOWN probes when Redis answers again, not a stack trace per probe.
 */
public class DlockHealthIndicator extends AbstractHealthIndicator {
    /** The lock read by the probe; nobody takes it, so the read finds no key and writes nothing. */
    static final String PROBE_LOCK = "dlock-health-probe";

    private static final Logger log = LoggerFactory.getLogger(DlockHealthIndicator.class);

    private final LockClient client;
    /** DOWN probes since the last UP one; 0 while Redis answers. */
    private long downProbes;
    private long downSinceNanos;

    /**
     * @param client the client whose Redis is probed
     */
    public DlockHealthIndicator(LockClient client) {
        super("dlock health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail(LocksEndpoint.storeKind(client.address()), client.address());
        long start = System.nanoTime();
        try {
            client.getLock(PROBE_LOCK).isLocked();
        } catch (LockBackendException e) {
            down(e);
            // the detail builder.down(e) gives, without the exception, which the base class would log with its stack
            builder.down().withDetail("error", e.getClass().getName() + ": " + e.getMessage());
            return;
        }
        up();
        builder.up().withDetail("responseMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private synchronized void down(LockBackendException failure) {
        if (downProbes++ == 0) {
            downSinceNanos = System.nanoTime();
            log.warn("dlock health is DOWN: {}. Until Redis answers again, DOWN probes are counted, not logged one by one.",
                    failure.getMessage());
        } else {
            log.debug("dlock health is DOWN: {}", failure.getMessage());
        }
    }

    private synchronized void up() {
        if (downProbes > 0) {
            log.info("dlock health is UP again, {} s after the first DOWN probe; {} probe(s) DOWN meanwhile",
                    Duration.ofNanos(System.nanoTime() - downSinceNanos).toSeconds(), downProbes);
            downProbes = 0;
        }
    }
}
