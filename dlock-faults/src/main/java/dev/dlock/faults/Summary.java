package dev.dlock.faults;

import static dev.dlock.faults.Campaign.LEASE_MS;
import static dev.dlock.faults.Campaign.LIVENESS_BOUND_MS;
import static dev.dlock.faults.Campaign.WAIT_SLACK_MS;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The summary table a campaign prints: per fault kind, how often, the slowest recovery, and what went wrong after it. */
final class Summary {

    private Summary() {
    }

    /**
     * The clients whose wall clock was skewed (the replacements of killed ones too), each with its
     * clock as {@link Workers.Worker#clock()} labels it, and the phase they ran through.
     */
    record SkewedClients(String phase, List<String> procs, List<String> clocks) {

        static SkewedClients of(String phase, List<Workers.Worker> workers) {
            List<Workers.Worker> skewed = workers.stream().filter(w -> !w.clock().isEmpty()).toList();
            return new SkewedClients(phase, skewed.stream().map(Workers.Worker::proc).toList(),
                    skewed.stream().map(Workers.Worker::clock).toList());
        }
    }

    /**
     * @param skewed the skewed clients, or null when clock skew was skipped
     */
    static String table(Campaign.Options options, FencedResource resource, Checker.Verdict verdict, long endMs,
                        SkewedClients skewed) {
        List<Event> history = resource.history();
        Checker checker = new Checker(history, Map.of(), List.of(), LIVENESS_BOUND_MS, WAIT_SLACK_MS, LEASE_MS, endMs);
        List<Checker.Window> windows = checker.windows();
        List<Long> accepted = history.stream().filter(e -> e.kind().equals("WRITE") && e.accepted()).map(Event::atMs).toList();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "seed %d, %.0f s, %d events; %d holds: %s%n%n", options.seed(), endMs / 1000.0,
                history.size(), verdict.holdsPerOutcome().values().stream().mapToInt(Integer::intValue).sum(),
                verdict.holdsPerOutcome()));
        out.append("| fault | injected | slowest recovery (healed -> next accepted write) | violations | documented overlaps |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        for (String kind : Campaign.kinds(options.store())) {
            List<Checker.Window> ofKind = windows.stream().filter(w -> w.kind().equals(kind)).toList();
            long slowest = -1;
            for (Checker.Window w : ofKind) {
                long next = accepted.stream().filter(at -> at > w.toMs()).findFirst().orElse(Long.MAX_VALUE);
                if (next != Long.MAX_VALUE) {
                    slowest = Math.max(slowest, next - w.toMs());
                }
            }
            long violations = verdict.violations().stream().filter(v -> within(v, ofKind)).count();
            long documented = verdict.documented().stream().filter(v -> within(v, ofKind)).count();
            String count = ofKind.isEmpty() ? (options.faults().contains(kind) ? "0 (not drawn in this run)" : "0 (not selected)")
                    : Integer.toString(ofKind.size());
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d |%n", kind, count,
                    slowest < 0 ? "–" : slowest + " ms", violations, documented));
        }
        if (skewed == null) {
            out.append("| clock skew | 0 (skipped) | – | 0 | – |\n");
        } else {
            List<Pattern> names = skewed.procs().stream().map(proc -> Pattern.compile("\\b" + proc + "\\b")).toList();
            long skewedWrites = history.stream().filter(e -> e.kind().equals("WRITE") && e.accepted()
                    && skewed.procs().contains(e.proc())).count();
            // the first two are the phase's own; any others took the place of killed ones, with their clocks
            int own = Math.min(2, skewed.procs().size());
            String clients = String.join(", ", java.util.stream.IntStream.range(0, own)
                    .mapToObj(i -> skewed.procs().get(i) + " " + skewed.clocks().get(i)).toList())
                    + (skewed.procs().size() > own ? " and " + (skewed.procs().size() - own) + " in place of killed ones" : "");
            out.append(String.format(Locale.ROOT, "| clock skew (clients %s, whole %s phase) | %d clients, %d writes accepted | – | %d | – |%n",
                    clients, skewed.phase(), skewed.procs().size(), skewedWrites, verdict.violations().stream()
                            .filter(v -> names.stream().anyMatch(name -> name.matcher(v.message()).find())).count()));
        }
        out.append(String.format(Locale.ROOT, "%nproperties: %s%n", verdict.passed() ? "all held"
                : verdict.violations().size() + " violations: " + verdict.violations().stream()
                .collect(Collectors.groupingBy(Checker.Violation::property, LinkedHashMap::new, Collectors.counting()))));
        out.append(String.format(Locale.ROOT, "documented overlaps %d%s%n", verdict.documented().size(), verdict.documented().stream()
                .map(v -> String.format(Locale.ROOT, "%n  at %.3f s: %s", v.atMs() / 1000.0, v.message())).collect(Collectors.joining())));
        out.append(String.format(Locale.ROOT, "accepted writes %d, counters %s%n", accepted.size(), resource.counters().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()[0] + "/" + e.getValue()[1]).sorted().toList()));
        return out.toString();
    }

    private static boolean within(Checker.Violation v, List<Checker.Window> windows) {
        return windows.stream().anyMatch(w -> v.atMs() >= w.fromMs() && v.atMs() <= w.toMs() + LIVENESS_BOUND_MS);
    }
}
