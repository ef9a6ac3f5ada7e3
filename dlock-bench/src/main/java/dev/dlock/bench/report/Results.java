package dev.dlock.bench.report;

import dev.dlock.bench.Metric;
import dev.dlock.bench.contenders.Contenders;
import dev.dlock.bench.scenarios.Scenario;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every figure of a run, per scenario, contender and round, and how they aggregate: a cell is
 * the median over rounds with the lowest and highest round as spread; a ratio is the median of
 * the per-round ratios (both contenders of a round ran back to back on the same servers, so
 * pairing by round cancels slow drifts in the machine's other load).
 */
public final class Results {

    private final int rounds;
    private final Map<Scenario, Map<Contenders, Map<Metric, Double>[]>> figures = new EnumMap<>(Scenario.class);
    private final Map<Scenario, Map<Contenders, String>> missing = new EnumMap<>(Scenario.class);

    public Results(int rounds) {
        this.rounds = rounds;
    }

    int rounds() {
        return rounds;
    }

    @SuppressWarnings("unchecked")
    public void record(Scenario scenario, Contenders contender, int round, Map<Metric, Double> values) {
        figures.computeIfAbsent(scenario, s -> new EnumMap<>(Contenders.class))
                .computeIfAbsent(contender, c -> new Map[rounds])[round] = values;
    }

    /** The contender has no figure in this scenario: not available in this build, or it failed. */
    public void missing(Scenario scenario, Contenders contender, String reason) {
        missing.computeIfAbsent(scenario, s -> new HashMap<>()).putIfAbsent(contender, reason);
    }

    Optional<String> missingReason(Scenario scenario, Contenders contender) {
        return Optional.ofNullable(missing.getOrDefault(scenario, Map.of()).get(contender));
    }

    boolean has(Scenario scenario, Contenders contender) {
        return !allValues(scenario, contender).isEmpty();
    }

    private List<Map<Metric, Double>> allValues(Scenario scenario, Contenders contender) {
        Map<Metric, Double>[] perRound = figures.getOrDefault(scenario, Map.of()).get(contender);
        List<Map<Metric, Double>> present = new ArrayList<>();
        if (perRound != null) {
            for (Map<Metric, Double> round : perRound) {
                if (round != null) {
                    present.add(round);
                }
            }
        }
        return present;
    }

    /** The figure of each round that has one. */
    List<Double> values(Scenario scenario, Contenders contender, Metric metric) {
        List<Double> values = new ArrayList<>();
        for (Map<Metric, Double> round : allValues(scenario, contender)) {
            Double value = round.get(metric);
            if (value != null && !value.isNaN()) {
                values.add(value);
            }
        }
        return values;
    }

    public Optional<Double> median(Scenario scenario, Contenders contender, Metric metric) {
        return median(values(scenario, contender, metric));
    }

    /** Median over rounds of {@code a / b}, pairing the rounds in which both have the figure. */
    public Optional<Double> ratio(Scenario scenario, Contenders a, Contenders b, Metric metric) {
        Map<Metric, Double>[] left = figures.getOrDefault(scenario, Map.of()).get(a);
        Map<Metric, Double>[] right = figures.getOrDefault(scenario, Map.of()).get(b);
        if (left == null || right == null) {
            return Optional.empty();
        }
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            if (left[round] != null && right[round] != null) {
                Double x = left[round].get(metric);
                Double y = right[round].get(metric);
                if (x != null && y != null && y != 0 && !x.isNaN() && !y.isNaN()) {
                    ratios.add(x / y);
                }
            }
        }
        return median(ratios);
    }

    public static Optional<Double> median(List<Double> values) {
        if (values.isEmpty()) {
            return Optional.empty();
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return Optional.of(sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2);
    }
}
