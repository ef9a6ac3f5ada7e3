package dev.dlock.cli.inspect;

import dev.dlock.LockInfo;
import dev.dlock.cli.common.LockInfoView;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one refresh of {@code dlock top} shows: a header line (time, where the locks live, how many
 * are held), then the table of {@code dlock list} with the longest held lock first, or what failed.
 */
final class TopView {

    /** Longest held first; names break ties, so that equal rows do not swap places between refreshes. */
    static final Comparator<LockInfo> LONGEST_HELD_FIRST =
            Comparator.comparing(LockInfo::heldFor).reversed().thenComparing(LockInfo::name);

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

    private final String target;
    private final String pattern;
    private final String hint;

    /**
     * @param target  where the locks live ({@link dev.dlock.LockClient#address()})
     * @param pattern the glob the locks' names match
     * @param hint    appended to the header (e.g. the keys); empty for none
     */
    TopView(String target, String pattern, String hint) {
        this.target = target;
        this.pattern = pattern;
        this.hint = hint;
    }

    /** The header and the locks, longest held first, holders shortened so that the table fits {@code width} columns. */
    List<String> locks(LocalTime time, List<LockInfo> locks, int width) {
        List<String> lines = new ArrayList<>();
        lines.add(header(time, locks.size() + (locks.size() == 1 ? " held lock" : " held locks")
                + " matching '" + pattern + "'"));
        if (locks.isEmpty()) {
            lines.add(LockInfoView.noneMatches(pattern));
        } else {
            lines.addAll(LockInfoView.table(locks.stream().sorted(LONGEST_HELD_FIRST).toList(), width));
        }
        return lines;
    }

    /** The header and why the locks could not be read this time. */
    List<String> failure(LocalTime time, String message) {
        return List.of(header(time, "locks matching '" + pattern + "': not read"), "failed: " + message);
    }

    private String header(LocalTime time, String what) {
        return TIME.format(time) + "  " + target + "  " + what + (hint.isEmpty() ? "" : "  (" + hint + ")");
    }
}
