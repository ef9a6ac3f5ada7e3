package dev.dlock.internal.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A lock's raw state as a store reads it; {@code owner} is null when free. {@code heldMs} is how
 * long the hold has lasted by the server's clock (see inspect.lua).
 */
public record LockState(String owner, int holdCount, long token, String holder, long pttlMs, long heldMs) {

    public static final LockState FREE = new LockState(null, 0, 0, "", 0, 0);

    public boolean isHeld() {
        return owner != null;
    }

    /**
     * Redlock's view of the nodes' states (null for a node that failed): held by the owner that
     * holds a quorum of the copies, with the largest token, the shortest lease left and the median
     * of the copies' hold times (each read on its node's clock, so one clock far off does not
     * decide); else free.
     */
    public static LockState heldByQuorum(List<LockState> states, int quorum) {
        Map<String, List<LockState>> byOwner = new HashMap<>();
        for (LockState state : states) {
            if (state != null && state.isHeld()) {
                byOwner.computeIfAbsent(state.owner(), owner -> new ArrayList<>()).add(state);
            }
        }
        return byOwner.values().stream()
                .filter(copies -> copies.size() >= quorum)
                .findFirst()
                .map(LockState::combine)
                .orElse(FREE);
    }

    private static LockState combine(List<LockState> copies) {
        LockState first = copies.get(0);
        long token = copies.stream().mapToLong(LockState::token).max().orElse(0);
        long pttl = copies.stream().mapToLong(LockState::pttlMs).min().orElse(0);
        int holdCount = copies.stream().mapToInt(LockState::holdCount).max().orElse(0);
        long[] held = copies.stream().mapToLong(LockState::heldMs).sorted().toArray();
        return new LockState(first.owner(), holdCount, token, first.holder(), pttl, held[held.length / 2]);
    }
}
