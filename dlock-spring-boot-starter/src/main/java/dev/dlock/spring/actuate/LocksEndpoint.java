package dev.dlock.spring.actuate;

import dev.dlock.LockClient;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code locks} actuator endpoint: the locks held now, optionally those whose name matches a
 * glob ({@code /actuator/locks?pattern=order:*}). It walks the keyspace with SCAN and reads each
 * matching lock, so it costs a round trip per held lock: an operator's tool, not a health probe.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {
    private final LockClient client;

    /**
     * @param client the client whose Redis is listed
     */
    public LocksEndpoint(LockClient client) {
        this.client = client;
    }

    /**
     * The held locks.
     *
     * @param pattern glob over lock names ({@code *}, {@code ?}, {@code [abc]}); all when absent
     * @return the locks, sorted by name
     */
    @ReadOperation
    public Locks locks(@Nullable String pattern) {
        String glob = pattern == null || pattern.isEmpty() ? "*" : pattern;
        long nowMicros = micros(Instant.now());
        List<HeldLock> held = client.listLocks(glob).stream().map(info -> HeldLock.of(info, nowMicros)).toList();
        return new Locks(client.address(), glob, held);
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000L;
    }

    /**
     * The endpoint's answer.
     *
     * @param redis   where the locks live, without credentials
     * @param pattern the glob applied
     * @param locks   the held locks matching it
     */
    public record Locks(String redis, String pattern, List<HeldLock> locks) {
    }

    /**
     * One held lock.
     *
     * @param name            the lock's name
     * @param holder          who holds it (client name, host, pid, thread)
     * @param holdCount       re-entries of the hold
     * @param heldForMillis   how long it has been held, read from the fencing token (Redis's
     *                        clock in microseconds at the grant, see docs/design.md): approximate,
     *                        off by the clock difference between Redis and this host; null when
     *                        the token is no plausible time
     * @param leaseLeftMillis the lease left
     * @param fencingToken    the hold's fencing token
     * @param waitingClients  clients with a thread or handle waiting for it
     */
    public record HeldLock(String name, @Nullable LockHolder holder, int holdCount, @Nullable Long heldForMillis,
                           long leaseLeftMillis, long fencingToken, long waitingClients) {

        static HeldLock of(LockInfo info, long nowMicros) {
            long heldForMicros = nowMicros - info.fencingToken();
            Long heldFor = heldForMicros >= -60_000_000L && heldForMicros < 366L * 24 * 3600 * 1_000_000L
                    ? Math.max(0, heldForMicros / 1000) : null;
            return new HeldLock(info.name(), info.holder().orElse(null), info.holdCount(), heldFor,
                    info.remainingLease().toMillis(), info.fencingToken(), info.waitingClients());
        }
    }
}
