package dev.dlock.spring.actuate;

import dev.dlock.LockClient;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
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
        List<HeldLock> held = client.listLocks(glob).stream().map(HeldLock::of).toList();
        return new Locks(client.address(), glob, held);
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
     * @param heldForMillis   how long the current hold has lasted, measured on Redis's clock
     *                        ({@link LockInfo#heldFor()}: this host's clock does not matter; a
     *                        re-entry does not restart it; for readers, the oldest read hold)
     * @param leaseLeftMillis the lease left
     * @param fencingToken    the hold's fencing token
     * @param waitingClients  clients with a thread or handle waiting for it
     */
    public record HeldLock(String name, @Nullable LockHolder holder, int holdCount, long heldForMillis,
                           long leaseLeftMillis, long fencingToken, long waitingClients) {

        static HeldLock of(LockInfo info) {
            return new HeldLock(info.name(), info.holder().orElse(null), info.holdCount(), info.heldFor().toMillis(),
                    info.remainingLease().toMillis(), info.fencingToken(), info.waitingClients());
        }
    }
}
