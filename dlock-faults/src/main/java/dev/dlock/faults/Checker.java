package dev.dlock.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Judges a campaign's history. The properties, each a {@link Violation} when broken:
 * <ol>
 * <li><b>exclusion</b>: no two holds of one lock that both had a write accepted believed they held
 * it at the same moment (each hold's belief runs from its registration to its release or its being
 * told of a loss, never past the validity it last claimed; overlaps up to
 * {@value #OVERLAP_SLACK_MS} ms are within the measuring error);</li>
 * <li><b>lost update</b>: every accepted write wrote back the counter it read plus one, so the
 * counter equals the accepted writes;</li>
 * <li><b>tokens</b>: per lock, the tokens of successive holds accepted by the resource strictly
 * increase;</li>
 * <li><b>liveness</b>: after each fault is healed, some write is accepted within the bound;</li>
 * <li><b>waits</b>: no acquisition reported its failure later than its wait plus a slack (outside a
 * pause of its own process);</li>
 * <li><b>told</b>: a hold the resource refused (it had lost its lock) was told so by dlock
 * (whenLost / isValid / LockLostException at release), unless its process was killed or stopped
 * first (an API client's holds; a {@code dlock exec} command cannot be asked); and it was told in
 * time: no write of it comes later than a lease after its successor registered (clients go on
 * writing through refusals until dlock says the hold is gone);</li>
 * <li><b>leftovers</b>: nothing is left in the store after the clients stopped but documented
 * bookkeeping (reported to the checker by the campaign).</li>
 * </ol>
 * Overlaps during a window of a documented limit (a failover, whose asynchronous replication may
 * lose a grant; a restart without persistence) are reported apart, as documented, when the counter
 * stayed exact: the fence is what keeps the data safe there.
 */
final class Checker {

    /**
     * Faults whose overlapping holds are a documented limit (docs/deployments.md, docs/design.md):
     * a restart of Redis without its data, a failover of replicas copied asynchronously. A promotion
     * of PostgreSQL's synchronous replica is not one of them: every grant a client heard of is on it.
     */
    static final Set<String> DOCUMENTED_UNSAFE = Set.of("restart-empty", "sentinel-failover", "cluster-failover",
            "pg-async-failover");

    record Violation(String property, long atMs, String lock, String message) {
    }

    record Verdict(List<Violation> violations, List<Violation> documented, Map<String, Integer> holdsPerOutcome) {
        boolean passed() {
            return violations.isEmpty();
        }
    }

    record Window(String kind, String target, long fromMs, long toMs) {
    }

    /**
     * A claimed validity is stamped when the claim arrives, a little after the holder measured it,
     * so a successor may seem to start up to the claim's transit time early: overlaps this short are
     * within the measuring error (a machine under load delays loopback messages by tens of ms).
     */
    static final long OVERLAP_SLACK_MS = 250;

    private final List<Event> history;
    private final Map<String, long[]> counters;
    private final List<String> leftovers;
    private final long livenessBoundMs;
    private final long waitSlackMs;
    private final long leaseMs;
    private final long endMs;
    private Set<String> pollingClients = Set.of();

    Checker(List<Event> history, Map<String, long[]> counters, List<String> leftovers, long livenessBoundMs,
            long waitSlackMs, long leaseMs, long endMs) {
        this.history = history.stream().sorted(Comparator.comparingLong(Event::atMs)).toList();
        this.counters = counters;
        this.leftovers = leftovers;
        this.livenessBoundMs = livenessBoundMs;
        this.waitSlackMs = waitSlackMs;
        this.leaseMs = leaseMs;
        this.endMs = endMs;
    }

    /**
     * The clients that poll instead of listening (behind PgBouncer in transaction pooling): they
     * hear of a forced release only at their next renewal, a third of a lease later, as
     * docs/deployments.md says, so their overlaps after one are documented.
     */
    Checker pollingClients(Set<String> procs) {
        this.pollingClients = Set.copyOf(procs);
        return this;
    }

    Verdict check() {
        List<Violation> violations = new ArrayList<>();
        List<Violation> documented = new ArrayList<>();
        Map<Hold.Key, Hold> holds = holds();
        List<Window> windows = windows();
        exclusion(holds, windows, violations, documented);
        lostUpdates(violations);
        tokens(violations);
        liveness(windows, violations);
        waits(windows, violations);
        told(holds, windows, violations);
        for (String key : leftovers) {
            violations.add(new Violation("leftovers", endMs, key, "left in the store after every client stopped: " + key));
        }
        Map<String, Integer> outcomes = new LinkedHashMap<>();
        for (Hold hold : holds.values()) {
            String outcome = hold.hasAcceptedWrite() ? (hold.wasRefused() ? "wrote, then fenced off" : "wrote")
                    : hold.wasRefused() ? "fenced off" : "no write";
            outcomes.merge(outcome, 1, Integer::sum);
        }
        return new Verdict(new ArrayList<>(violations), documented, outcomes);
    }

    private Map<Hold.Key, Hold> holds() {
        Map<Hold.Key, Hold> holds = new LinkedHashMap<>();
        for (Event e : history) {
            if (e.token() != 0 && Set.of("ACQ", "READ", "WRITE", "REL", "LOST").contains(e.kind())) {
                holds.computeIfAbsent(e.holdKey(), Hold::new).events.add(e);
            }
        }
        return holds;
    }

    List<Window> windows() {
        List<Window> windows = new ArrayList<>();
        for (int i = 0; i < history.size(); i++) {
            Event fault = history.get(i);
            if (!fault.kind().equals("FAULT")) {
                continue;
            }
            long healed = endMs;
            for (int j = i + 1; j < history.size(); j++) {
                Event e = history.get(j);
                if (e.kind().equals("HEALED") && e.lock().equals(fault.lock()) && e.detail().equals(fault.detail())) {
                    healed = e.atMs();
                    break;
                }
            }
            windows.add(new Window(fault.lock(), fault.detail(), fault.atMs(), healed));
        }
        return windows;
    }

    /**
     * Until when a hold believed it held its lock ({@link Hold#beliefEndMs()}), leaving out the claims
     * that reached the resource during, or just after, a stop of its own process: such a claim was
     * measured before the stop, and what the holder sent then is the classic pause between a check
     * and an act, which only the fence can catch (and the resource refuses it). A killed process
     * believes nothing once it is dead, whatever validity it claimed before.
     */
    private long beliefEndMs(Hold hold, List<Window> windows) {
        long killed = windows.stream().filter(w -> w.kind().equals("client-kill") && w.target().equals(hold.key.proc())
                && w.toMs() >= hold.startMs()).mapToLong(Window::toMs).min().orElse(Long.MAX_VALUE);
        return Math.min(killed, claimedBeliefEndMs(hold, windows));
    }

    private long claimedBeliefEndMs(Hold hold, List<Window> windows) {
        List<Window> stops = windows.stream().filter(w -> w.kind().equals("client-stop") && w.target().equals(hold.key.proc()))
                .toList();
        Hold fresh = new Hold(hold.key);
        for (Event e : hold.events) {
            boolean stale = e.validForMs() >= 0 && stops.stream()
                    .anyMatch(w -> e.atMs() >= w.fromMs() && e.atMs() <= w.toMs() + OVERLAP_SLACK_MS);
            fresh.events.add(stale ? new Event(e.atMs(), e.proc(), e.kind(), e.lock(), e.token(), 0, e.accepted(),
                    e.value(), e.detail()) : e);
        }
        return fresh.beliefEndMs();
    }

    private void exclusion(Map<Hold.Key, Hold> holds, List<Window> windows, List<Violation> violations,
                           List<Violation> documented) {
        Map<String, List<Hold>> byLock = holds.values().stream().filter(Hold::hasAcceptedWrite)
                .collect(Collectors.groupingBy(h -> h.key.lock(), LinkedHashMap::new, Collectors.toList()));
        for (List<Hold> sameLock : byLock.values()) {
            sameLock.sort(Comparator.comparingLong(Hold::startMs));
            for (int i = 0; i < sameLock.size(); i++) {
                for (int j = i + 1; j < sameLock.size(); j++) {
                    Hold a = sameLock.get(i);
                    Hold b = sameLock.get(j);
                    long aEnd = beliefEndMs(a, windows);
                    if (b.startMs() >= aEnd - OVERLAP_SLACK_MS) {
                        continue;
                    }
                    long from = b.startMs();
                    long to = Math.min(aEnd, beliefEndMs(b, windows));
                    Violation v = new Violation("exclusion", from, a.key.lock(), String.format(java.util.Locale.ROOT,
                            "%s (token %d) and %s (token %d) both believed they held '%s' for %d ms, and both had writes accepted",
                            a.key.proc(), a.key.token(), b.key.proc(), b.key.token(), a.key.lock(), to - from));
                    boolean documentedLimit = windows.stream().anyMatch(w -> DOCUMENTED_UNSAFE.contains(w.kind())
                            && from <= w.toMs() + leaseMs && to >= w.fromMs());
                    boolean forcedOffAPoller = pollingClients.contains(a.key.proc()) && windows.stream().anyMatch(w ->
                            w.kind().equals("forced-release") && w.fromMs() <= from + OVERLAP_SLACK_MS && to <= w.toMs() + leaseMs);
                    boolean excused = (documentedLimit || forcedOffAPoller) && counterExact(a.key.lock());
                    (excused ? documented : violations).add(v);
                }
            }
        }
    }

    private boolean counterExact(String lock) {
        long[] c = counters.get(lock);
        return c == null || c[0] == c[1];
    }

    private void lostUpdates(List<Violation> violations) {
        for (Event e : history) {
            if (e.kind().equals("WRITE") && e.accepted() && !e.detail().isEmpty()) {
                violations.add(new Violation("lost update", e.atMs(), e.lock(), e.proc() + " (token " + e.token() + "): " + e.detail()));
            }
        }
        counters.forEach((lock, c) -> {
            if (c[0] != c[1]) {
                violations.add(new Violation("lost update", endMs, lock, "counter of '" + lock + "' is " + c[0] + " after "
                        + c[1] + " accepted writes"));
            }
        });
    }

    private void tokens(List<Violation> violations) {
        Map<String, Event> previous = new LinkedHashMap<>();
        for (Event e : history) {
            if (!(e.kind().equals("ACQ") || e.kind().equals("WRITE")) || !e.accepted()) {
                continue;
            }
            Event before = previous.put(e.lock(), e);
            if (before != null && !before.holdKey().equals(e.holdKey()) && e.token() <= before.token()) {
                violations.add(new Violation("tokens", e.atMs(), e.lock(), e.proc() + "'s token " + e.token()
                        + " does not exceed the previous holder " + before.proc() + "'s token " + before.token()));
            }
        }
    }

    private void liveness(List<Window> windows, List<Violation> violations) {
        List<Long> accepted = history.stream().filter(e -> e.kind().equals("WRITE") && e.accepted()).map(Event::atMs).toList();
        for (Window w : windows) {
            if (w.toMs() + livenessBoundMs > endMs) {
                continue;
            }
            boolean progress = accepted.stream().anyMatch(at -> at > w.toMs() && at <= w.toMs() + livenessBoundMs);
            if (!progress) {
                violations.add(new Violation("liveness", w.toMs(), w.kind(), "no write accepted within "
                        + livenessBoundMs + " ms after " + w.kind() + " (" + w.target() + ") was healed"));
            }
        }
    }

    private void waits(List<Window> windows, List<Violation> violations) {
        for (Event e : history) {
            if (!(e.kind().equals("TIMEOUT") || e.kind().equals("ERROR")) || e.lock().equals("connect")) {
                continue;
            }
            String waitText = e.detail().startsWith("wait ") ? e.detail().substring(5).split(" ")[0] : null;
            long waited = e.value();
            long startedMs = e.atMs() - waited;
            boolean paused = windows.stream().anyMatch(w -> w.kind().equals("client-stop") && w.target().equals(e.proc())
                    && w.fromMs() <= e.atMs() && w.toMs() >= startedMs);
            long allowed = (waitText != null ? Long.parseLong(waitText) : 0) + waitSlackMs;
            if (waitText != null && waited > allowed && !paused) {
                violations.add(new Violation("waits", e.atMs(), e.lock(), e.proc() + " gave up after " + waited
                        + " ms, past its wait plus " + waitSlackMs + " ms"));
            }
        }
    }

    /**
     * A holder whose successor registered (a higher token) must hear of its loss within a lease: the
     * watchdog renews every third of it, and a renewal that finds the lock gone tells the holder; a
     * forced release is told at once on one Redis. A holder still writing later was never told.
     */
    private void toldInTime(List<Window> windows, List<Violation> violations) {
        Map<String, List<Event>> registrations = new LinkedHashMap<>();
        java.util.Set<Hold.Key> reported = new java.util.HashSet<>();
        for (Event e : history) {
            if (e.kind().equals("ACQ") && e.accepted()) {
                registrations.computeIfAbsent(e.lock(), lock -> new ArrayList<>()).add(e);
            }
            if (!e.kind().equals("WRITE") || e.validForMs() < 0 || reported.contains(e.holdKey())) {
                continue;
            }
            Event successor = registrations.getOrDefault(e.lock(), List.of()).stream()
                    .filter(r -> r.token() > e.token()).findFirst().orElse(null);
            boolean paused = windows.stream().anyMatch(w -> (w.kind().equals("client-stop") || w.kind().equals("partition"))
                    && (w.target().equals(e.proc()) || w.kind().equals("partition")) && w.toMs() + leaseMs >= e.atMs()
                    && w.fromMs() <= e.atMs());
            if (successor != null && e.atMs() > successor.atMs() + leaseMs + OVERLAP_SLACK_MS && !paused) {
                reported.add(e.holdKey());
                violations.add(new Violation("told", e.atMs(), e.lock(), String.format(java.util.Locale.ROOT,
                        "%s (token %d) still wrote %d ms after %s registered token %d: dlock never told it its lock was gone",
                        e.proc(), e.token(), e.atMs() - successor.atMs(), successor.proc(), successor.token())));
            }
        }
    }

    private void told(Map<Hold.Key, Hold> holds, List<Window> windows, List<Violation> violations) {
        toldInTime(windows, violations);
        for (Hold hold : holds.values()) {
            if (!hold.wasRefused() || hold.wasTold()) {
                continue;
            }
            long refusedAt = hold.events.stream().filter(e -> !e.accepted()
                    && (e.kind().equals("ACQ") || e.kind().equals("WRITE"))).findFirst().orElseThrow().atMs();
            boolean exec = hold.events.stream().allMatch(e -> e.validForMs() < 0);
            boolean interrupted = windows.stream().anyMatch(w -> (w.kind().equals("client-kill") || w.kind().equals("client-stop"))
                    && w.target().equals(hold.key.proc()) && w.fromMs() <= refusedAt + leaseMs);
            boolean execLost = exec && history.stream().anyMatch(e -> e.kind().equals("EXIT") && e.proc().equals(hold.key.proc())
                    && e.lock().equals(hold.key.lock()) && e.atMs() >= refusedAt && e.value() == 122);
            boolean runEnded = refusedAt + 3 * leaseMs > endMs;
            if (!interrupted && !execLost && !runEnded && !exec) {
                violations.add(new Violation("told", refusedAt, hold.key.lock(), hold.key.proc() + " (token "
                        + hold.key.token() + ") was fenced off by the resource but never told it had lost the lock"));
            }
        }
    }

    /** The history around a violation: the lock's events and every fault within 3 s either side. */
    List<Event> around(Violation v) {
        return history.stream().filter(e -> Math.abs(e.atMs() - v.atMs()) <= 3000
                        && (e.lock().equals(v.lock()) || e.kind().equals("FAULT") || e.kind().equals("HEALED")))
                .limit(40).toList();
    }
}
