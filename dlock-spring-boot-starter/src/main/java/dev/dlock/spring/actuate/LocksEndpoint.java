package dev.dlock.spring.actuate;

import dev.dlock.LockClient;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
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
        String address = client.address();
        boolean postgres = storeKind(address).equals("postgresql");
        return new Locks(postgres ? null : address, postgres ? address : null, glob, held);
    }

    /** What the client's locks live on, named as the health and this endpoint name it: redis or postgresql. */
    static String storeKind(String address) {
        return address.startsWith("postgresql") ? "postgresql" : "redis";
    }

    /**
     * The endpoint's answer.
     *
     * @param redis      where the locks live, without credentials, when on Redis (else absent)
     * @param postgresql where the locks live, without credentials, when on PostgreSQL (else absent)
     * @param pattern    the glob applied
     * @param locks      the held locks matching it
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Locks(@Nullable String redis, @Nullable String postgresql, String pattern, List<HeldLock> locks) {
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
