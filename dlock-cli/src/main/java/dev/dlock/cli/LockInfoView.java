package dev.dlock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How {@code status}, {@code list} and {@code top} show a {@link LockInfo}, to people and to scripts. */
final class LockInfoView {

    private static final ObjectMapper JSON = new ObjectMapper();

    private LockInfoView() {
    }

    /** One line of JSON for what {@link #json(LockInfo)} built (or a list of them). */
    static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value + " as JSON", e);
        }
    }

    /** The JSON object documented in docs/cli.md; a free lock has null holder and token. */
    static Map<String, Object> json(LockInfo info) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", info.name());
        json.put("key", info.key());
        json.put("locked", info.isLocked());
        json.put("holder", info.holder().map(LockInfoView::holderJson).orElse(null));
        json.put("holdCount", info.holdCount());
        json.put("remainingLeaseMs", info.remainingLease().toMillis());
        json.put("heldForMs", info.heldFor().toMillis());
        json.put("fencingToken", info.isLocked() ? info.fencingToken() : null);
        json.put("waitingClients", info.waitingClients());
        return json;
    }

    private static Map<String, Object> holderJson(LockHolder holder) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("client", holder.clientName());
        json.put("host", holder.host());
        json.put("pid", holder.pid());
        json.put("thread", holder.thread());
        return json;
    }

    /** {@code client on host, pid N, thread T}. */
    static String holder(LockHolder holder) {
        return holder.clientName() + " on " + holder.host() + ", pid " + holder.pid() + ", thread " + holder.thread();
    }

    /** Several lines for {@code dlock status}. */
    static String text(LockInfo info) {
        StringBuilder out = new StringBuilder();
        out.append("lock '").append(info.name()).append("': ").append(info.isLocked() ? "held" : "free").append('\n');
        info.holder().ifPresent(holder -> {
            row(out, "holder", holder(holder));
            row(out, "hold count", Integer.toString(info.holdCount()));
            row(out, "held for", Durations.format(info.heldFor()));
            row(out, "lease left", Durations.format(info.remainingLease()));
            row(out, "fencing token", Long.toString(info.fencingToken()));
        });
        row(out, "waiting", info.waitingClients() + (info.waitingClients() == 1 ? " client" : " clients"));
        row(out, "key", info.key());
        return out.toString();
    }

    /** What {@code list} and {@code top} say when no held lock matches. */
    static String noneMatches(String pattern) {
        return "no held lock matches '" + pattern + "'";
    }

    /**
     * The table of {@code list} and {@code top}, a header and a line per lock in the given order,
     * each column as wide as its widest cell; no line ends with a line separator.
     */
    static List<String> table(List<LockInfo> locks) {
        int nameWidth = Math.max(4, locks.stream().mapToInt(info -> info.name().length()).max().orElse(0));
        int holderWidth = Math.max(6, locks.stream().mapToInt(info -> holderCell(info).length()).max().orElse(0));
        String format = "%-" + nameWidth + "s  %-" + holderWidth + "s  %8s  %10s  %s";
        List<String> lines = new ArrayList<>();
        lines.add(String.format(format, "NAME", "HOLDER", "HELD FOR", "LEASE LEFT", "WAITING").stripTrailing());
        for (LockInfo info : locks) {
            lines.add(String.format(format, info.name(), holderCell(info), Durations.format(info.heldFor()),
                    Durations.format(info.remainingLease()), info.waitingClients()));
        }
        return lines;
    }

    private static String holderCell(LockInfo info) {
        return info.holder().map(LockInfoView::holder).orElse("-");
    }

    private static void row(StringBuilder out, String label, String value) {
        out.append(String.format("  %-14s %s%n", label, value));
    }
}
