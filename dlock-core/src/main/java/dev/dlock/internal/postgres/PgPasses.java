package dev.dlock.internal.postgres;

import dev.dlock.internal.store.AcquireReply;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Grants this client makes to its own threads without a call (passes, schema version 4): the last
 * release of a reentrant hold hands the lock to a parked thread of the client with the next of the
 * 15 tokens that the database left unused above the hold's (its token sequence steps by 16), so the
 * new holder's token is above the last one and below any the database grants later. The database's
 * row keeps the owner id of the hold it granted: this class maps each passed hold's owner id to it
 * for every later call (release, renewal, abandon), and records each pass's token and holder in the
 * row behind it ({@code dlock_passed}), one call per name at a time with the latest pass, for
 * inspection alone.
 *
 * <p>A pass needs the hold it passes to be one the database granted to this client (or passed from
 * one), with the same lease, and at least half of that lease left on this process's clock: the new
 * hold is trusted until the old one's validity, which its renewals extend as they do any hold's.
 */
final class PgPasses {

    /** The passes one database grant can make: its token's 15 unused successors (V4__dlock.sql). */
    static final int MAX_PASSES = 15;
    private static final int PURGE_ABOVE = 1024;

    /**
     * A live hold that may be passed: the name's key, the owner id the database knows it by, the
     * token the database granted and how many passes since, and until when it is valid here.
     */
    private record Grant(String key, String rowOwner, long grantedToken, int passes, long validUntilNanos, long leaseMs) {
        long token() {
            return grantedToken + passes;
        }
    }

    /** A pass not yet recorded in the row. */
    private record Unrecorded(String rowOwner, long token, String holder) {
    }

    private final PgConnections connections;
    private final String passedSql;
    private final Map<String, Grant> byOwner = new ConcurrentHashMap<>();
    private final Map<String, Unrecorded> unrecorded = new ConcurrentHashMap<>();
    private final Set<String> recording = ConcurrentHashMap.newKeySet();

    PgPasses(PgConnections connections, PgSchema schema) {
        this.connections = connections;
        this.passedSql = "SELECT " + schema.qualified("dlock_passed(?, ?, ?, ?)");
    }

    /** The database granted {@code owner} an exclusive hold of {@code key} with this token. */
    void granted(String key, String owner, long token, long validUntilNanos, long leaseMs, long nowNanos) {
        if (byOwner.size() > PURGE_ABOVE) {
            // holds that ended without a release this client saw (lost, or the client gave up on them)
            byOwner.values().removeIf(grant -> grant.validUntilNanos() - nowNanos < -TimeUnit.MINUTES.toNanos(1));
        }
        byOwner.put(owner, new Grant(key, owner, token, 0, validUntilNanos, leaseMs));
    }

    /** The owner id the database knows the hold of {@code owner} by: its own, or the passed hold's. */
    String rowOwner(String owner) {
        Grant grant = byOwner.get(owner);
        return grant == null ? owner : grant.rowOwner();
    }

    /** A renewal of the hold of {@code owner} succeeded: valid until then at least. */
    void renewed(String owner, long validUntilNanos) {
        byOwner.computeIfPresent(owner, (id, grant) -> validUntilNanos <= grant.validUntilNanos() ? grant
                : new Grant(grant.key(), grant.rowOwner(), grant.grantedToken(), grant.passes(), validUntilNanos, grant.leaseMs()));
    }

    /** The hold of {@code owner} ended here (released, passed on by a call, found gone). */
    void ended(String owner) {
        byOwner.remove(owner);
    }

    /**
     * Passes the hold of {@code fromOwner} to {@code toOwner} when it can: its grant, the token one
     * above the last; null when it cannot (not a granted hold here, its 15 passes made, another
     * lease asked, or less than half its lease left), and the caller hands off through the database.
     */
    AcquireReply.Granted pass(String key, String fromOwner, String toOwner, long leaseMs, String toHolder, long nowNanos) {
        Grant from = byOwner.get(fromOwner);
        if (from == null || !from.key().equals(key) || from.passes() >= MAX_PASSES || from.leaseMs() != leaseMs
                || from.validUntilNanos() - nowNanos <= TimeUnit.MILLISECONDS.toNanos(leaseMs) / 2
                || !byOwner.remove(fromOwner, from)) {
            return null;
        }
        Grant next = new Grant(key, from.rowOwner(), from.grantedToken(), from.passes() + 1, from.validUntilNanos(), leaseMs);
        byOwner.put(toOwner, next);
        record(key, new Unrecorded(next.rowOwner(), next.token(), toHolder == null ? "" : toHolder));
        return new AcquireReply.Granted(next.token(), 1, next.validUntilNanos());
    }

    /** Records the latest pass of {@code key} in its row, one call per name at a time. */
    private void record(String key, Unrecorded pass) {
        unrecorded.merge(key, pass, (old, latest) -> latest.token() > old.token() ? latest : old);
        if (recording.add(key)) {
            recordNext(key);
        }
    }

    private void recordNext(String key) {
        Unrecorded pass = unrecorded.remove(key);
        if (pass == null) {
            recording.remove(key);
            // a pass that came between the remove above and this one's own check found the name recording
            if (unrecorded.containsKey(key) && recording.add(key)) {
                recordNext(key);
            }
            return;
        }
        connections.submit("passed", c -> {
            try (PreparedStatement call = c.prepareStatement(passedSql)) {
                call.setString(1, key);
                call.setString(2, pass.rowOwner());
                call.setLong(3, pass.token());
                call.setString(4, pass.holder());
                call.execute();
                return (Void) null;
            }
        }).whenComplete((done, error) -> recordNext(key));
    }
}
