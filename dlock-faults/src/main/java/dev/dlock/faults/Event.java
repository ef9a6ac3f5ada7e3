package dev.dlock.faults;

import java.util.Locale;

/**
 * One entry of the campaign's history, stamped by the fenced resource (or the campaign, for faults)
 * on one clock when it arrived, so entries from all processes are in one order.
 *
 * @param atMs        milliseconds since the campaign started, on the campaign's monotonic clock
 * @param proc        the client process (one name per process started) or {@code campaign}
 * @param kind        {@code ACQ}, {@code READ}, {@code WRITE}, {@code REL}, {@code LOST}, {@code TIMEOUT},
 *                    {@code ERROR}, {@code EXIT}, or {@code FAULT} / {@code HEALED}
 * @param lock        the lock's name, or the fault's kind
 * @param token       the holder's fencing token, 0 when none
 * @param validForMs  the holder's own idea of how long its hold is still valid when it sent this
 *                    ({@link LockHandle#leaseEstimate()}); -1 when the holder cannot know ({@code dlock exec}'s command)
 * @param accepted    an {@code ACQ} or {@code WRITE} the resource accepted (its token not below the highest seen)
 * @param value       READ: the counter read; WRITE: the value the writer read before writing; TIMEOUT/ERROR: ms waited
 * @param detail      free text: the fault's target, a loss's reason, an error's message
 */
record Event(long atMs, String proc, String kind, String lock, long token, long validForMs, boolean accepted,
             long value, String detail) {

    Hold.Key holdKey() {
        return new Hold.Key(proc, lock, token);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%8.3f s  %-10s %-7s %-18s token %-17d%s%s%s", atMs / 1000.0, proc, kind, lock,
                token, validForMs >= 0 ? " valid " + validForMs + " ms" : "",
                kind.equals("ACQ") || kind.equals("WRITE") ? (accepted ? " accepted" : " REFUSED") : "",
                (kind.equals("WRITE") || kind.equals("READ") ? " value " + value : "")
                        + (detail.isEmpty() ? "" : "  " + detail));
    }
}
