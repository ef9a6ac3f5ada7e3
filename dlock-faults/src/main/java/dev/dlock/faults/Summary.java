package dev.dlock.faults;

import static dev.dlock.faults.Campaign.KINDS;
import static dev.dlock.faults.Campaign.LEASE_MS;
import static dev.dlock.faults.Campaign.LIVENESS_BOUND_MS;
import static dev.dlock.faults.Campaign.WAIT_SLACK_MS;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The summary table a campaign prints: per fault kind, how often, the slowest recovery, and what went wrong after it. */
final class Summary {

    private Summary() {
    }

    /**
     * @param skewed how the two skewed clients' (oapi3, oapi4) wall clocks ran, or null when clock skew was skipped
     */
    static String table(Campaign.Options options, FencedResource resource, Checker.Verdict verdict, long endMs,
                        List<String> skewed) {
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
        for (String kind : KINDS) {
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
        Set<String> procs = history.stream().map(Event::proc).collect(Collectors.toSet());
        long skewedWrites = history.stream().filter(e -> e.kind().equals("WRITE") && e.accepted()
                && (e.proc().equals("oapi3") || e.proc().equals("oapi4"))).count();
        out.append(String.format(Locale.ROOT, "| clock skew (clients oapi3 %s, oapi4 %s, whole single-Redis phase) | %s | – | %d | – |%n",
                skewed == null ? "-" : skewed.get(0), skewed == null ? "-" : skewed.get(1),
                skewed != null && procs.contains("oapi3") ? "2 clients, " + skewedWrites + " writes accepted" : "0 (skipped)",
                verdict.violations().stream().filter(v -> v.message().contains("oapi3") || v.message().contains("oapi4")).count()));
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
