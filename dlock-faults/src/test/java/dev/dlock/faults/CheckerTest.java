package dev.dlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker on small made-up histories: each property it judges is caught when broken, and not otherwise. */
class CheckerTest {

    private final List<Event> history = new ArrayList<>();

    private void ev(long at, String proc, String kind, long token, long validFor, boolean accepted, long value) {
        history.add(new Event(at, proc, kind, "x", token, validFor, accepted, value, ""));
    }

    private Checker.Verdict check(Map<String, long[]> counters) {
        return new Checker(history, counters, List.of(), 20_000, 3000, 3000, 100_000).check();
    }

    private List<String> properties(Checker.Verdict verdict) {
        return verdict.violations().stream().map(Checker.Violation::property).toList();
    }

    /** Two holds one after the other, each writing once. */
    private void twoCleanHolds() {
        ev(1000, "a", "ACQ", 10, 3000, true, 0);
        ev(1100, "a", "WRITE", 10, 2900, true, 0);
        ev(1200, "a", "REL", 10, -1, false, 0);
        ev(1300, "b", "ACQ", 11, 3000, true, 0);
        ev(1400, "b", "WRITE", 11, 2900, true, 1);
        ev(1500, "b", "REL", 11, -1, false, 0);
    }

    @Test
    void aCleanHistoryPasses() {
        twoCleanHolds();
        assertThat(check(Map.of("x", new long[] {2, 2})).violations()).isEmpty();
    }

    /** a and b both believe they hold x from 2000 to 2200, each with a write accepted. */
    private void twoOverlappingHolds() {
        ev(1000, "a", "ACQ", 10, 3000, true, 0);
        ev(1100, "a", "WRITE", 10, 2900, true, 0);
        ev(2000, "b", "ACQ", 11, 3000, true, 0);
        ev(2100, "b", "WRITE", 11, 2900, true, 1);
        ev(2200, "b", "REL", 11, -1, false, 0);
        ev(2300, "a", "REL", 10, -1, false, 0);
    }

    @Test
    void twoHoldsBelievingAtOnceWithAcceptedWritesBreakExclusion() {
        twoOverlappingHolds();
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).containsExactly("exclusion");
    }

    @Test
    void aHoldWhoseClaimedValidityEndedBeforeItsSuccessorDoesNotOverlap() {
        ev(1000, "a", "ACQ", 10, 3000, true, 0);
        ev(1100, "a", "WRITE", 10, 1000, true, 0);
        // a was stopped; its claim ran out at 2100; b starts at 5000; a hears of it on resuming
        ev(5000, "b", "ACQ", 11, 3000, true, 0);
        ev(5100, "b", "WRITE", 11, 2900, true, 1);
        ev(5200, "a", "LOST", 10, -1, false, 0);
        assertThat(check(Map.of("x", new long[] {2, 2})).violations()).isEmpty();
    }

    @Test
    void aKilledHolderBelievesNothingOnceDeadWhateverValidityItClaimed() {
        ev(1000, "a", "ACQ", 10, 3000, true, 0);
        ev(1100, "a", "WRITE", 10, 2900, true, 0);
        history.add(new Event(1200, "campaign", "FAULT", "client-kill", 0, -1, false, 0, "a"));
        history.add(new Event(1250, "campaign", "HEALED", "client-kill", 0, -1, false, 0, "a"));
        // a's claim ran to 4000, but a died at 1250; the lock is force-released and b takes it
        ev(2000, "b", "ACQ", 11, 3000, true, 0);
        ev(2100, "b", "WRITE", 11, 2900, true, 1);
        ev(2200, "b", "REL", 11, -1, false, 0);
        assertThat(check(Map.of("x", new long[] {2, 2})).violations()).isEmpty();
    }

    @Test
    void aHolderKilledOnlyAfterItsSuccessorStartedStillOverlapped() {
        ev(1000, "a", "ACQ", 10, 3000, true, 0);
        ev(1100, "a", "WRITE", 10, 2900, true, 0);
        ev(2000, "b", "ACQ", 11, 3000, true, 0);
        ev(2100, "b", "WRITE", 11, 2900, true, 1);
        history.add(new Event(2800, "campaign", "FAULT", "client-kill", 0, -1, false, 0, "a"));
        history.add(new Event(2850, "campaign", "HEALED", "client-kill", 0, -1, false, 0, "a"));
        ev(2900, "b", "REL", 11, -1, false, 0);
        ev(3000, "c", "ACQ", 12, 3000, true, 0);
        ev(3100, "c", "WRITE", 12, 2900, true, 2);
        assertThat(properties(check(Map.of("x", new long[] {3, 3})))).containsExactly("exclusion");
    }

    /** Two overlapping holds just after a failover of the given kind (1800 to 1900). */
    private Checker.Verdict overlapAroundAFailover(String kind) {
        history.add(new Event(1800, "campaign", "FAULT", kind, 0, -1, false, 0, "primary"));
        history.add(new Event(1900, "campaign", "HEALED", kind, 0, -1, false, 0, "primary"));
        twoOverlappingHolds();
        return check(Map.of("x", new long[] {2, 2}));
    }

    @Test
    void anOverlapAcrossAnAsynchronousPostgresFailoverIsADocumentedOne() {
        Checker.Verdict verdict = overlapAroundAFailover("pg-async-failover");
        assertThat(verdict.violations()).isEmpty();
        assertThat(verdict.documented()).extracting(Checker.Violation::property).containsExactly("exclusion");
    }

    @Test
    void anOverlapAcrossASynchronousPostgresFailoverIsAViolation() {
        assertThat(properties(overlapAroundAFailover("pg-sync-failover"))).containsExactly("exclusion");
    }

    @Test
    void aPollingHolderForcedOffHearsOfItAtItsNextRenewalAsDocumented() {
        history.add(new Event(1800, "campaign", "FAULT", "forced-release", 0, -1, false, 0, "x"));
        history.add(new Event(1810, "campaign", "HEALED", "forced-release", 0, -1, false, 0, "x"));
        twoOverlappingHolds();
        Checker.Verdict polling = new Checker(history, Map.of("x", new long[] {2, 2}), List.of(), 20_000, 3000, 3000, 100_000)
                .pollingClients(java.util.Set.of("a")).check();
        assertThat(polling.violations()).isEmpty();
        assertThat(polling.documented()).extracting(Checker.Violation::property).containsExactly("exclusion");
        // a listening holder is told at once: the same overlap is a violation
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).containsExactly("exclusion");
    }

    @Test
    void aWriteOfAStaleReadIsALostUpdate() {
        twoCleanHolds();
        history.set(4, new Event(1400, "b", "WRITE", "x", 11, 2900, true, 0, "LOST UPDATE: the counter was 1"));
        assertThat(properties(check(Map.of("x", new long[] {1, 2})))).containsExactly("lost update", "lost update");
    }

    @Test
    void aSuccessorWithTheSameTokenBreaksTheTokenOrder() {
        twoCleanHolds();
        history.replaceAll(e -> e.proc().equals("b") ? new Event(e.atMs(), "b", e.kind(), "x", 10, e.validForMs(),
                e.accepted(), e.value(), "") : e);
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).containsExactly("tokens");
    }

    @Test
    void noAcceptedWriteWithinTheBoundAfterAFaultBreaksLiveness() {
        twoCleanHolds();
        history.add(new Event(2000, "campaign", "FAULT", "server-stop", 0, -1, false, 0, "redis"));
        history.add(new Event(3000, "campaign", "HEALED", "server-stop", 0, -1, false, 0, "redis"));
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).containsExactly("liveness");
        ev(20_000, "c", "ACQ", 12, 3000, true, 0);
        ev(20_100, "c", "WRITE", 12, 2900, true, 2);
        assertThat(check(Map.of("x", new long[] {3, 3})).violations()).isEmpty();
    }

    @Test
    void aWaiterReportingFarPastItsWaitIsStuck() {
        twoCleanHolds();
        history.add(new Event(20_000, "c", "TIMEOUT", "x", 0, -1, false, 9000, "wait 3000"));
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).containsExactly("waits");
    }

    @Test
    void aFencedOffHolderNeverToldBreaksTold() {
        twoCleanHolds();
        ev(1600, "a", "ACQ", 9, 3000, false, 0);
        ev(1700, "a", "REL", 9, -1, false, 0);
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).containsExactly("told");
        ev(1650, "a", "LOST", 9, -1, false, 0);
        assertThat(check(Map.of("x", new long[] {2, 2})).violations()).isEmpty();
    }

    @Test
    void keysLeftInTheStoreAreReported() {
        twoCleanHolds();
        Checker.Verdict verdict = new Checker(history, Map.of("x", new long[] {2, 2}), List.of("dlock:{x} on redis"),
                20_000, 3000, 3000, 100_000).check();
        assertThat(properties(verdict)).containsExactly("leftovers");
    }

    @Test
    void aHolderStillWritingALeaseAfterItsSuccessorRegisteredWasNeverTold() {
        ev(1000, "a", "ACQ", 10, 3000, true, 0);
        ev(1100, "a", "WRITE", 10, 2900, true, 0);
        ev(2000, "b", "ACQ", 11, 3000, true, 0);
        ev(2100, "b", "WRITE", 11, 2900, true, 1);
        ev(2200, "b", "REL", 11, -1, false, 0);
        ev(2300, "a", "WRITE", 10, 2000, false, 1);
        ev(6000, "a", "WRITE", 10, 2000, false, 2);
        ev(6100, "a", "REL", 10, -1, false, 0);
        ev(6200, "a", "LOST", 10, -1, false, 0);
        assertThat(properties(check(Map.of("x", new long[] {2, 2})))).contains("told");
    }
}
