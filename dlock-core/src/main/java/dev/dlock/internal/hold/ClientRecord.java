package dev.dlock.internal.hold;

import dev.dlock.LockHolder;
import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.ClientRecordEntry;
import dev.dlock.internal.store.LockStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The client's record in the store ({@link ClientRecordEntry}): its name, host and pid, and the
 * names of its threads that took locks. The reentrant lock keeps only the owner id, whose client
 * and thread ids lead here, so a held lock costs the store no holder description of its own;
 * {@link dev.dlock.internal.observe.LockInspector} joins the two.
 *
 * <p>The record must outlive every hold of the client: it is written before a thread's first
 * acquisition (and again when its name changed), lives at least {@link #MIN_TTL_MS} and longer
 * than any lease asked for, and is written again at each round of the watchdog. Writes are best
 * effort: a record that could not be written shows as a holder with only its client id known.
 */
public final class ClientRecord {

    /** How long a record lives at the least: extended rarely, and gone soon after its client. */
    private static final long MIN_TTL_MS = TimeUnit.MINUTES.toMillis(10);
    /** Rewritten once less than this is left beyond the lease in question. */
    private static final long MARGIN_MS = TimeUnit.MINUTES.toMillis(1);

    private final LockStore store;
    private final ClientIdentity identity;
    private final Ticker ticker;
    private final HoldRegistry holds;
    /** Thread id (base 36) → the name written for it, and when. */
    private final Map<String, Recorded> recordedThreads = new ConcurrentHashMap<>();
    /** How long the record lives at least, by this client's clock: a write counts from when it was sent. */
    private volatile long liveUntilNanos;
    private volatile boolean written;

    private record Recorded(String name, long atNanos) {
    }

    public ClientRecord(LockStore store, ClientIdentity identity, Ticker ticker, HoldRegistry holds) {
        this.store = store;
        this.holds = holds;
        this.identity = identity;
        this.ticker = ticker;
        this.liveUntilNanos = ticker.nanoTime();
    }

    /** Before the current thread acquires with this lease: writes what the record lacks, if anything. */
    public void beforeAcquire(long leaseMs) {
        Thread thread = Thread.currentThread();
        String threadId = ClientIdentity.threadId(thread);
        String name = ClientIdentity.clean(thread.getName());
        long now = ticker.nanoTime();
        Recorded recorded = recordedThreads.get(threadId);
        if (covers(now, leaseMs) && recorded != null && recorded.name().equals(name)) {
            return;
        }
        synchronized (this) {
            if (!covers(now, 0)) {
                // it may be gone already, and with it every thread's name: none of them holds anything
                recordedThreads.clear();
            }
            recordedThreads.put(threadId, new Recorded(name, now));
            write(now, leaseMs, false, List.of(threadId, name));
        }
    }

    /**
     * At each round of the watchdog (holds with this lease are renewed): writes the record whole
     * again, one call per round, so that a record lost with a server's data (a restart without
     * persistence, a failover to a replica that never had it, a flush) is back within a renewal
     * period while its holds are, and its time to live keeps ahead of theirs. Threads that hold
     * nothing and have not asked for a lock within the lease leave it: a client whose threads come
     * and go (virtual threads) keeps a record of its holders, not of every thread it ever ran.
     */
    public void onRenewalRound(long leaseMs) {
        long now = ticker.nanoTime();
        Set<String> holding = new HashSet<>();
        for (Hold hold : holds.live()) {
            ClientIdentity.clientAndThread(hold.owner).ifPresent(ids -> holding.add(ids[1]));
        }
        long recentFrom = now - TimeUnit.MILLISECONDS.toNanos(leaseMs);
        synchronized (this) {
            recordedThreads.entrySet().removeIf(entry -> !holding.contains(entry.getKey())
                    && entry.getValue().atNanos() - recentFrom < 0);
            List<String> threads = new ArrayList<>();
            recordedThreads.forEach((threadId, recorded) -> {
                threads.add(threadId);
                threads.add(recorded.name());
            });
            write(now, leaseMs, true, threads);
        }
    }

    /** The client closes, its holds released: its record goes (best effort), if it ever wrote one. */
    public CompletableFuture<Void> forget() {
        return written ? store.dropClientRecord(identity.clientId()) : CompletableFuture.completedFuture(null);
    }

    private boolean covers(long nowNanos, long leaseMs) {
        return liveUntilNanos - nowNanos > TimeUnit.MILLISECONDS.toNanos(leaseMs + MARGIN_MS);
    }

    private void write(long nowNanos, long leaseMs, boolean replace, List<String> threads) {
        long ttlMs = Math.max(MIN_TTL_MS, leaseMs + 2 * MARGIN_MS);
        written = true;
        store.writeClientRecord(new ClientRecordEntry(identity.clientId(), identity.clientName(), ClientIdentity.host(),
                ClientIdentity.pid(), ttlMs, replace, threads));
        liveUntilNanos = Math.max(liveUntilNanos, nowNanos + TimeUnit.MILLISECONDS.toNanos(ttlMs));
    }

    /**
     * Who holds under this owner id, from its client's record; a holder with only the client id
     * when there is no record (its client gone longer than its leases), or the owner id alone for
     * an id of another form.
     */
    public static CompletableFuture<LockHolder> holderOf(LockStore store, String owner) {
        Optional<String[]> ids = ClientIdentity.clientAndThread(owner);
        if (ids.isEmpty()) {
            return CompletableFuture.completedFuture(new LockHolder(owner, "", -1, ""));
        }
        String clientId = ids.get()[0];
        return store.readClientRecord(clientId, ids.get()[1]).thenApply(record ->
                record.orElseGet(() -> new LockHolder("client " + clientId + " (no record)", "", -1, "")));
    }
}
