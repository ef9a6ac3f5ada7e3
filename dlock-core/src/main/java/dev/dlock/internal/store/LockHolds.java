package dev.dlock.internal.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
     * lease left, in the order the holds reached a quorum (the quorum-th smallest token of each
     * one's copies: a node that granted late, after the acquire had returned, can give an earlier
     * hold the largest token); the permit count stored by most of the nodes that carry those holds.
     * Not the largest any node stores: a refused acquire with another count may have taken a permit
     * on a node that the holders missed, and it stays there until it is given back or its lease ends.
     */
    public static LockHolds heldByQuorum(List<LockHolds> nodes, int quorum) {
        Map<String, List<HoldState>> byOwner = new HashMap<>();
        for (LockHolds node : nodes) {
            if (node != null) {
                node.holds().forEach(hold -> byOwner.computeIfAbsent(hold.owner(), owner -> new ArrayList<>()).add(hold));
            }
        }
        Map<HoldState, Long> reachedQuorumAt = new HashMap<>();
        for (List<HoldState> copies : byOwner.values()) {
            if (copies.size() >= quorum) {
                HoldState first = copies.get(0);
                long[] tokens = copies.stream().mapToLong(HoldState::token).sorted().toArray();
                reachedQuorumAt.put(new HoldState(first.owner(), copies.stream().mapToInt(HoldState::holdCount).max().orElse(0),
                        tokens[tokens.length - 1], first.holder(),
                        copies.stream().mapToLong(HoldState::pttlMs).min().orElse(0), first.shared()), tokens[quorum - 1]);
            }
        }
        List<HoldState> held = new ArrayList<>(reachedQuorumAt.keySet());
        held.sort(Comparator.<HoldState>comparingLong(reachedQuorumAt::get).thenComparingLong(HoldState::token));
        return new LockHolds(held.isEmpty() ? 0 : permitsOfTheHolders(nodes, held), held);
    }

    private static int permitsOfTheHolders(List<LockHolds> nodes, List<HoldState> held) {
        Set<String> owners = new HashSet<>();
        held.forEach(hold -> owners.add(hold.owner()));
        Map<Integer, Integer> nodesByPermits = new HashMap<>();
        for (LockHolds node : nodes) {
            if (node != null && node.holds().stream().anyMatch(hold -> owners.contains(hold.owner()))) {
                nodesByPermits.merge(node.permits(), 1, Integer::sum);
            }
        }
        return nodesByPermits.entrySet().stream()
                .max(Comparator.<Map.Entry<Integer, Integer>>comparingInt(Map.Entry::getValue).thenComparingInt(Map.Entry::getKey))
                .map(Map.Entry::getKey).orElse(0);
    }
}
