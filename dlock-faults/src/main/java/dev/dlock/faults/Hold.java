package dev.dlock.faults;

import java.util.ArrayList;
import java.util.List;

/** Everything the history says about one hold: one process's one acquisition of one lock. */
final class Hold {

    /** A hold is told apart by its process, its lock and its fencing token. */
    record Key(String proc, String lock, long token) {
    }

    final Key key;
    final List<Event> events = new ArrayList<>();

    Hold(Key key) {
        this.key = key;
    }

    long startMs() {
        return events.get(0).atMs();
    }

    boolean hasAcceptedWrite() {
        return events.stream().anyMatch(e -> e.kind().equals("WRITE") && e.accepted());
    }

    boolean wasRefused() {
        return events.stream().anyMatch(e -> (e.kind().equals("WRITE") || e.kind().equals("ACQ")) && !e.accepted());
    }

    boolean wasTold() {
        return events.stream().anyMatch(e -> e.kind().equals("LOST"));
    }

    /**
     * Until when the holder believed it held the lock: its release or its being told of a loss,
     * but never past the end of the validity it last claimed; without either, the end of that
     * validity (a killed holder), or its last message when it cannot know its validity.
     */
    long beliefEndMs() {
        long claimedEnd = Long.MIN_VALUE;
        long last = startMs();
        long ended = Long.MAX_VALUE;
        for (Event e : events) {
            last = Math.max(last, e.atMs());
            if (e.validForMs() >= 0) {
                claimedEnd = Math.max(claimedEnd, e.atMs() + e.validForMs());
            }
            if ((e.kind().equals("REL") || e.kind().equals("LOST")) && ended == Long.MAX_VALUE) {
                ended = e.atMs();
            }
        }
        if (claimedEnd == Long.MIN_VALUE) {
            return ended == Long.MAX_VALUE ? last : ended;
        }
        return Math.min(ended, claimedEnd);
    }
}
