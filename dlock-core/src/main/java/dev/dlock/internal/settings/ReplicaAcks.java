package dev.dlock.internal.settings;

import java.time.Duration;

/**
 * How many replicas of the one Redis must acknowledge a grant or a renewal (WAIT) before it
 * counts, and how long to wait for them. {@link #NONE}: nothing is waited for.
 *
 * @param replicas how many replicas must acknowledge; 0 for none
 * @param timeout  WAIT's timeout, at least 1 ms (WAIT 0 would block for ever) and below the
 *                 command timeout (the WAIT must answer before the client gives up on it)
 */
public record ReplicaAcks(int replicas, Duration timeout) {

    public static final ReplicaAcks NONE = new ReplicaAcks(0, Duration.ZERO);

    /** Checks the values on their own; {@link #check} checks them against the other settings. */
    public static ReplicaAcks of(int replicas, Duration timeout) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicaAcks needs at least 1 replica, got " + replicas);
        }
        if (timeout == null || timeout.isNegative() || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("replicaAcks timeout must be at least 1 ms, got " + timeout);
        }
        return new ReplicaAcks(replicas, timeout);
    }

    public boolean enabled() {
        return replicas > 0;
    }

    public long timeoutMs() {
        return timeout.toMillis();
    }

    public void check(boolean redlock, Duration commandTimeout) {
        if (redlock) {
            throw new IllegalStateException("replicaAcks is for one Redis with replicas (standalone or Sentinel); "
                    + "a Redlock client's masters must be independent, and its quorum, not replication, keeps a "
                    + "lock across the loss of a node");
        }
        if (timeout.compareTo(commandTimeout) >= 0) {
            throw new IllegalArgumentException("replicaAcks timeout " + timeout + " must be shorter than commandTimeout "
                    + commandTimeout + ", or the client would give up on WAIT before Redis answers it");
        }
    }

    @Override
    public String toString() {
        return enabled() ? replicas + " within " + timeout.toMillis() + " ms" : "none";
    }
}
