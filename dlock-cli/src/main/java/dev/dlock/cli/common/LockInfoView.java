package dev.dlock.cli.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dlock.HoldInfo;
import dev.dlock.LockHolder;
import dev.dlock.LockInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** How {@code status}, {@code list} and {@code top} show a {@link LockInfo}, to people and to scripts. */
public final class LockInfoView {

    private LockInfoView() {
    }

    /** Made on first use, so that text output does not load Jackson (a short command is mostly JVM start-up). */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** One line of JSON for what {@link #json(LockInfo)} built (or a list of them). */
    public static String toJson(Object value) {
        try {
            return Json.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value + " as JSON", e);
        }
    }

    /** The JSON object documented in docs/cli.md; a free lock has null holder and token. */
    public static Map<String, Object> json(LockInfo info) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", info.name());
        json.put("key", info.key());
        json.put("locked", info.isLocked());
        json.put("kind", kind(info));
        // of several holds, the holder is the one whose token is shown: the highest
        Optional<HoldInfo> newest = info.holds().stream().max(Comparator.comparingLong(HoldInfo::fencingToken));
        json.put("holder", newest.map(hold -> holderJson(hold.holder()))
                .orElse(info.holder().map(LockInfoView::holderJson).orElse(null)));
        json.put("holdCount", info.holdCount());
        json.put("remainingLeaseMs", info.remainingLease().toMillis());
        json.put("heldForMs", info.heldFor().toMillis());
        json.put("fencingToken", info.isLocked() ? newest.map(HoldInfo::fencingToken).orElse(info.fencingToken()) : null);
        json.put("waitingClients", info.waitingClients());
        json.put("permits", info.permits() > 0 ? info.permits() : null);
        json.put("holds", info.holds().stream().map(LockInfoView::holdJson).toList());
        return json;
    }

    /**
     * What holds the name: "semaphore" (permits), "shared" (readers of a read-write lock),
     * "exclusive" (a lock, a fair lock or a writer: one holder); null when free.
     */
    static String kind(LockInfo info) {
        if (!info.isLocked()) {
            return null;
        }
        if (info.permits() > 0) {
            return "semaphore";
        }
        return info.holds().stream().anyMatch(HoldInfo::shared) ? "shared" : "exclusive";
    }

    private static Map<String, Object> holdJson(HoldInfo hold) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("holder", holderJson(hold.holder()));
        json.put("shared", hold.shared());
        json.put("holdCount", hold.holdCount());
        json.put("remainingLeaseMs", hold.remainingLease().toMillis());
        json.put("fencingToken", hold.fencingToken());
        return json;
    }

    /** "permit of 3: ", "reader: " or "" (an exclusive holder), before a holder in a listing. */
    static String holdLabel(LockInfo info, HoldInfo hold) {
        if (!hold.shared()) {
            return "";
        }
        return info.permits() > 0 ? "permit of " + info.permits() + ": " : "reader: ";
    }

    private static Map<String, Object> holderJson(LockHolder holder) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("client", holder.clientName());
        json.put("host", holder.host());
        json.put("pid", holder.pid());
        json.put("thread", holder.thread());
        return json;
    }

    /** {@code 1 permit}, {@code 3 permits}. */
    public static String permits(int count) {
        return count + (count == 1 ? " permit" : " permits");
    }

    /** {@code client on host, pid N, thread T}. */
    public static String holder(LockHolder holder) {
        return holder.clientName() + " on " + holder.host() + ", pid " + holder.pid() + ", thread " + holder.thread();
    }

    /** Several lines for {@code dlock status}. */
    public static String text(LockInfo info) {
        return text(info, false);
    }

    /**
     * Several lines for {@code dlock status}; on PostgreSQL the last says under which name the
     * lock's rows are stored, where on Redis it names the key.
     */
    public static String text(LockInfo info, boolean postgres) {
        StringBuilder out = new StringBuilder();
        out.append("lock '").append(info.name()).append("': ").append(info.isLocked() ? "held" : "free");
        boolean shared = info.holds().stream().anyMatch(HoldInfo::shared);
        if (info.permits() > 0) {
            out.append(" (semaphore: ").append(info.holds().size()).append(" of ").append(permits(info.permits()))
                    .append(" held)");
        } else if (shared) {
            out.append(" (").append(info.holds().size()).append(info.holds().size() == 1 ? " reader)" : " readers)");
        }
        out.append('\n');
        if (shared) {
            for (HoldInfo hold : info.holds()) {
                row(out, hold.shared() ? (info.permits() > 0 ? "permit" : "reader") : "writer", holder(hold.holder())
                        + "; lease left " + Durations.format(hold.remainingLease()) + "; token " + hold.fencingToken());
            }
        }
        info.holder().filter(holder -> !shared).ifPresent(holder -> {
            row(out, "holder", holder(holder));
            row(out, "hold count", Integer.toString(info.holdCount()));
            row(out, "held for", Durations.format(info.heldFor()));
            row(out, "lease left", Durations.format(info.remainingLease()));
            row(out, "fencing token", Long.toString(info.fencingToken()));
        });
        row(out, "waiting", info.waitingClients() + (info.waitingClients() == 1 ? " client" : " clients"));
        if (postgres) {
            row(out, "rows", "name '" + info.key() + "' in dlock_hold, dlock_waiter");
        } else {
            row(out, "key", info.key());
        }
        return out.toString();
    }

    /** What {@code list} and {@code top} say when no held lock matches. */
    public static String noneMatches(String pattern) {
        return "no held lock matches '" + pattern + "'";
    }

    /**
     * The table of {@code list} and {@code top}, a header and, for each lock in the given order, a
     * line per hold (a semaphore's permits and a read-write lock's readers each have theirs; the
     * lock's held for, since its oldest hold, is on its first line); each column as wide as its
     * widest cell; no line ends with a line separator.
     */
    public static List<String> table(List<LockInfo> locks) {
        return table(locks, Integer.MAX_VALUE);
    }

    /**
     * The table, its lines at most {@code width} characters where the holders can give way: the
     * holder column is what shrinks (a cut holder ends in "..."), so that held for, lease left and
     * waiting stay whole; names and figures are never cut.
     */
    public static List<String> table(List<LockInfo> locks, int width) {
        List<String[]> rows = new ArrayList<>();
        for (LockInfo info : locks) {
            String heldFor = Durations.format(info.heldFor());
            String waiting = Long.toString(info.waitingClients());
            if (info.holds().isEmpty()) {
                rows.add(new String[] {info.name(), info.holder().map(LockInfoView::holder).orElse("-"), heldFor,
                        Durations.format(info.remainingLease()), waiting});
            }
            for (HoldInfo hold : info.holds()) {
                rows.add(new String[] {info.name(), holdLabel(info, hold) + holder(hold.holder()), heldFor,
                        Durations.format(hold.remainingLease()), waiting});
                heldFor = "";
            }
        }
        int nameWidth = Math.max(4, rows.stream().mapToInt(row -> row[0].length()).max().orElse(0));
        int widestHolder = Math.max(6, rows.stream().mapToInt(row -> row[1].length()).max().orElse(0));
        int holderWidth = Math.max(6, Math.min(widestHolder, width - nameWidth - FIGURES_WIDTH));
        for (String[] row : rows) {
            row[1] = shortened(row[1], holderWidth);
        }
        String format = "%-" + nameWidth + "s  %-" + holderWidth + "s  %8s  %10s  %s";
        List<String> lines = new ArrayList<>();
        lines.add(String.format(format, "NAME", "HOLDER", "HELD FOR", "LEASE LEFT", "WAITING").stripTrailing());
        for (String[] row : rows) {
            lines.add(String.format(format, (Object[]) row));
        }
        return lines;
    }

    /** What a table line has beside its name and holder: the gaps, held for, lease left and "WAITING". */
    private static final int FIGURES_WIDTH = 2 + 2 + 8 + 2 + 10 + 2 + "WAITING".length();

    /** {@code text} cut to {@code width} characters, ending in "..." when cut (ASCII: any locale prints it). */
    static String shortened(String text, int width) {
        return text.length() <= width ? text : text.substring(0, width - 3) + "...";
    }

    private static void row(StringBuilder out, String label, String value) {
        out.append(String.format("  %-14s %s%n", label, value));
    }
}
