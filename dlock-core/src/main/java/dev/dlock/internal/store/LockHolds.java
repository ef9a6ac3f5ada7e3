package dev.dlock.internal.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every live hold of a name: the exclusive holder, each reader and
 * each semaphore permit; {@code permits} is the semaphore's permit count, 0 when the name is not a
 * semaphore.
 */
public record LockHolds(int permits, List<HoldState> holds) {

    /** One hold; {@code shared}: a reader or a permit. */
    public record HoldState(String owner, int holdCount, long token, String holder, long pttlMs, boolean shared) {
    }


    /**
     * Redlock's view of the nodes' holds (null for a node that failed): each hold whose owner has a
     * copy on a quorum of the nodes, with the largest token, the largest count and the shortest
     * lease left; the largest permit count any node stores.
     */
    public static LockHolds heldByQuorum(List<LockHolds> nodes, int quorum) {
        Map<String, List<HoldState>> byOwner = new HashMap<>();
        int permits = 0;
        for (LockHolds node : nodes) {
            if (node != null) {
                permits = Math.max(permits, node.permits());
                node.holds().forEach(hold -> byOwner.computeIfAbsent(hold.owner(), owner -> new ArrayList<>()).add(hold));
            }
        }
        List<HoldState> held = new ArrayList<>();
        for (List<HoldState> copies : byOwner.values()) {
            if (copies.size() >= quorum) {
                HoldState first = copies.get(0);
                held.add(new HoldState(first.owner(), copies.stream().mapToInt(HoldState::holdCount).max().orElse(0),
                        copies.stream().mapToLong(HoldState::token).max().orElse(0), first.holder(),
                        copies.stream().mapToLong(HoldState::pttlMs).min().orElse(0), first.shared()));
            }
        }
        held.sort(Comparator.comparingLong(HoldState::token));
        return new LockHolds(held.isEmpty() ? 0 : permits, held);
    }
}
