package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.bench.contenders.BenchLock;
import dev.dlock.bench.contenders.Contenders;
import dev.dlock.bench.report.Report;
import dev.dlock.bench.report.Results;
import dev.dlock.bench.scenarios.ContendedArena;
import dev.dlock.bench.scenarios.ContendedTally;
import dev.dlock.bench.scenarios.LoadScenarios;
import dev.dlock.bench.scenarios.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The arithmetic and the report of the bench tool; no Redis, no benchmark runs. */
class BenchToolTest {

    @Test
    void percentilesAreNearestRankInMicroseconds() {
        Samples samples = new Samples();
        for (long i = 1; i <= 100; i++) {
            samples.add(i * 1000);
        }
        long[] sorted = Samples.sorted(List.of(samples));
        assertThat(Samples.percentileMicros(sorted, 50)).isEqualTo(50.0);
        assertThat(Samples.percentileMicros(sorted, 99)).isEqualTo(99.0);
        assertThat(Samples.percentileMicros(sorted, 99.9)).isEqualTo(100.0);
        assertThat(Samples.percentileMicros(new long[0], 50)).isNaN();
    }

    @Test
    void ratiosAreMediansOfPerRoundRatios() {
        Results results = new Results(3);
        double[] dlock = {100, 300, 200};
        double[] redisson = {50, 100, 200};
        for (int round = 0; round < 3; round++) {
            results.record(Scenario.UNCONTENDED, Contenders.DLOCK, round, Map.of(Metric.OPS, dlock[round]));
            results.record(Scenario.UNCONTENDED, Contenders.REDISSON, round, Map.of(Metric.OPS, redisson[round]));
        }
        assertThat(results.median(Scenario.UNCONTENDED, Contenders.DLOCK, Metric.OPS)).contains(200.0);
        // per round 2.0, 3.0, 1.0: the median is 2.0, not 200 / 100
        assertThat(results.ratio(Scenario.UNCONTENDED, Contenders.DLOCK, Contenders.REDISSON, Metric.OPS)).contains(2.0);
    }

    @Test
    void aRerunKeepsTheNotesBelowTheEndMarker(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("docs").resolve("benchmarks.md");
        Results results = new Results(1);
        results.record(Scenario.CONTENDED, Contenders.DLOCK, 0, Map.of(Metric.ACQUISITIONS, 9000.0, Metric.JAIN, 1.0));
        results.missing(Scenario.REDLOCK, Contenders.DLOCK_REDLOCK, "Redlock not yet merged");
        Report.Facts facts = new Report.Facts(Instant.parse("2026-01-02T03:04:05Z"), Duration.ofSeconds(61),
                Main.Plan.QUICK, "7.0.15", 0.5, 0.7, 0.02);
        Report report = new Report(results, facts, EnumSet.of(Scenario.CONTENDED, Scenario.REDLOCK));
        report.write(file);
        String first = Files.readString(file);
        assertThat(first).contains("2026-01-02 03:04 UTC").contains("9,000").contains("n/a (Redlock not yet merged)");
        Files.writeString(file, first.replace("(Analysis written by hand goes here; the run keeps it.)", "kept by hand"));
        report.write(file);
        assertThat(Files.readString(file)).contains("kept by hand").containsOnlyOnce(Report.BEGIN);
    }

    @Test
    void everyScenarioIsNamedInTheUsageAndTheUnknownScenarioError() {
        assertThat(Scenario.byId("fair")).isEqualTo(Scenario.FAIR);
        assertThat(Scenario.byId("contended-clients")).isEqualTo(Scenario.CONTENDED_CLIENTS);
        for (Scenario scenario : Scenario.values()) {
            assertThat(Main.usage()).contains(scenario.id);
            assertThatThrownBy(() -> Scenario.byId("nope")).hasMessageContaining(scenario.id);
        }
    }

    @Test
    void theContendedLoadAsksEachThreadForItsLockAndCountsEveryAcquisition() {
        ReentrantLock shared = new ReentrantLock();
        Set<Integer> asked = ConcurrentHashMap.newKeySet();
        Map<Metric, Double> figures = LoadScenarios.contended(i -> {
            assertThat(asked.add(i)).as("thread %d asked once", i).isTrue();
            return new BenchLock() {
                @Override
                public void lock() {
                    shared.lock();
                }

                @Override
                public void unlock() {
                    shared.unlock();
                }
            };
        }, 4, Duration.ofMillis(20), Duration.ofMillis(100));
        assertThat(asked).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(figures.keySet()).containsAll(Scenario.CONTENDED_CLIENTS.metrics);
        assertThat(figures.get(Metric.ACQUISITIONS)).isPositive();
        assertThat(figures.get(Metric.VIOLATIONS)).isZero();
    }

    @Test
    void theFairScenarioIsComparedWithRedissonsFairLockAndHasNoTargetsWhileTheOtherContendedOnesHaveThem() {
        assertThat(Report.redissonOf(Scenario.FAIR)).isEqualTo(Contenders.REDISSON_FAIR);
        assertThat(Report.redissonOf(Scenario.CONTENDED_CLIENTS)).isEqualTo(Contenders.REDISSON);
        Results results = new Results(1);
        results.record(Scenario.FAIR, Contenders.DLOCK_FAIR, 0, Map.of(Metric.ACQUISITIONS, 3000.0));
        results.record(Scenario.FAIR, Contenders.REDISSON_FAIR, 0, Map.of(Metric.ACQUISITIONS, 1000.0));
        Report.Facts facts = new Report.Facts(Instant.parse("2026-01-02T03:04:05Z"), Duration.ofSeconds(61),
                Main.Plan.QUICK, "7.0.15", 0.5, 0.7, 0.02);
        Report report = new Report(results, facts, EnumSet.of(Scenario.FAIR, Scenario.CONTENDED_CLIENTS));
        assertThat(report.generated()).contains("| dlock fair | Redisson fair |").contains("3,000 · 3.00×R")
                .contains("## contended-clients");
        assertThat(report.targets()).extracting(Report.Target::scenario)
                .doesNotContain(Scenario.FAIR.id)
                .contains(Scenario.CONTENDED_CLIENTS.id, Scenario.CONTENDED_PROCESSES.id);
    }

    @Test
    void theFloorsAreShownNextToTheTargetsTheyBound() {
        Results results = new Results(1);
        results.record(Scenario.UNCONTENDED, Contenders.RTT, 0, Map.of(Metric.P50, 100.0, Metric.REDIS_CPU, 8.0));
        results.record(Scenario.UNCONTENDED, Contenders.FLOOR, 0, Map.of(Metric.OPS, 4000.0, Metric.REDIS_CPU, 20.0));
        results.record(Scenario.UNCONTENDED, Contenders.DLOCK, 0, Map.of(Metric.OPS, 3000.0, Metric.REDIS_CPU, 45.0));
        results.record(Scenario.REDLOCK, Contenders.QUORUM_FLOOR, 0, Map.of(Metric.P50, 300.0, Metric.REDIS_CPU, 100.0));
        results.record(Scenario.REDLOCK, Contenders.FENCED_QUORUM_FLOOR, 0, Map.of(Metric.P50, 390.0, Metric.REDIS_CPU, 160.0));
        results.record(Scenario.REDLOCK, Contenders.DLOCK_REDLOCK, 0, Map.of(Metric.P50, 420.0, Metric.REDIS_CPU, 230.5));
        results.record(Scenario.CONTENDED_PROCESSES, Contenders.DLOCK, 0, Map.of(Metric.HANDOFF_P50, 413.0));
        results.record(Scenario.CONTENDED_PROCESSES, Contenders.REDISSON, 0, Map.of(Metric.HANDOFF_P50, 1200.0));
        results.record(Scenario.CONTENDED_PROCESSES, Contenders.HANDOFF_FLOOR, 0, Map.of(Metric.HANDOFF_P50, 390.0));
        Report.Facts facts = new Report.Facts(Instant.parse("2026-01-02T03:04:05Z"), Duration.ofSeconds(61),
                Main.Plan.QUICK, "7.0.15", 0.5, 0.7, 0.02);
        Report report = new Report(results, facts,
                EnumSet.of(Scenario.UNCONTENDED, Scenario.CONTENDED_PROCESSES, Scenario.REDLOCK));
        assertThat(report.generated())
                .contains("| | dlock | Redisson | raw handoff floor |")
                .contains("| handoff p50 (µs) | 413 · 0.34×R | 1,200 | 390 · 0.33×R |")
                .contains("| Redis CPU per pair (µs) | 8.0 | 20.0 | 45.0 | n/a (not run) | 2.25× |")
                .contains("| Redis CPU per pair (µs) | 100.0 | 160.0 | 230.5 | n/a (not run) |");
        assertThat(report.targets()).filteredOn(target -> target.goal().startsWith("handoff gap"))
                .extracting(Report.Target::measured)
                .contains("4.13 RTT (413 µs; 1 RTT = PING p50 100 µs); raw handoff floor 3.90 RTT (390 µs)");
        // what fencing tokens alone cost over the raw quorum floor, beside the Redlock target
        assertThat(report.targets()).filteredOn(target -> target.goal().equals("p50 ≤ 1.3× the raw quorum floor's"))
                .extracting(Report.Target::measured)
                .containsExactly("1.40× floor (fenced quorum floor ÷ raw quorum floor: 1.30×)");
    }

    @Test
    void processesShareTheArenaThroughTheMappedFile(@TempDir Path dir) {
        Path file = dir.resolve("arena");
        ContendedArena.Mapped parent = ContendedArena.mapped(file, true);
        ContendedArena.Mapped child = ContendedArena.mapped(file, false);
        assertThat(child.phase()).isEqualTo(ContendedArena.STARTING);
        assertThat(child.lastReleaseThread()).isEqualTo(-1);
        parent.setPhase(ContendedArena.MEASURE);
        assertThat(child.phase()).isEqualTo(ContendedArena.MEASURE);
        assertThat(parent.enter()).isEqualTo(1);
        assertThat(child.enter()).isEqualTo(2);
        child.violation();
        child.released(7, 123_456_789L);
        child.ready();
        assertThat(parent.violations()).isEqualTo(1);
        assertThat(parent.lastReleaseThread()).isEqualTo(7);
        assertThat(parent.lastReleaseNanos()).isEqualTo(123_456_789L);
        assertThat(parent.readyCount()).isEqualTo(1);
    }

    @Test
    void talliesSentByAChildProcessGiveTheSameFigures() throws Exception {
        ContendedTally first = new ContendedTally(0);
        ContendedTally second = new ContendedTally(1);
        first.acquired(0, 2_000, -1, 0);
        first.acquired(10_000, 13_000, 1, 12_000);
        second.acquired(5_000, 9_000, 0, 8_000);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            first.writeTo(out);
            second.writeTo(out);
        }
        List<ContendedTally> sent = new java.util.ArrayList<>();
        try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            sent.add(ContendedTally.readFrom(in));
            sent.add(ContendedTally.readFrom(in));
        }
        Map<Metric, Double> direct = ContendedTally.figures(List.of(first, second), 1_000_000_000L, 0);
        assertThat(ContendedTally.figures(sent, 1_000_000_000L, 0)).isEqualTo(direct);
        assertThat(direct.get(Metric.ACQUISITIONS)).isEqualTo(3.0);
        assertThat(direct.get(Metric.HANDOFF_P50)).isEqualTo(1.0);
    }
}
