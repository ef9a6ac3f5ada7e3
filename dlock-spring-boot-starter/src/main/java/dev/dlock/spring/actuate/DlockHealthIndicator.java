package dev.dlock.spring.actuate;

import dev.dlock.LockClient;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the locks: UP when Redis answers a lock read (one round trip on a probe lock that is
 * never taken; over Redlock, a quorum of the masters), DOWN with the failure otherwise. It tells
 * whether locks can be taken and released; it does not tell whether the watchdog keeps up with
 * renewals (dlock tells that through {@link dev.dlock.LockListener}s, hold by hold).
 */
public class DlockHealthIndicator extends AbstractHealthIndicator {
    /** The lock read by the probe; nobody takes it, so the read finds no key and writes nothing. */
    static final String PROBE_LOCK = "dlock-health-probe";

    private final LockClient client;

    /**
     * @param client the client whose Redis is probed
     */
    public DlockHealthIndicator(LockClient client) {
        super("dlock health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("redis", client.address());
        long start = System.nanoTime();
        client.getLock(PROBE_LOCK).isLocked();
        builder.up().withDetail("responseMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
}
