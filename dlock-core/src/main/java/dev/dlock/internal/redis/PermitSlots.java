package dev.dlock.internal.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Redlock semaphores: a permit is one of the semaphore's slots (0 to permits − 1), and it is held
 * when a quorum of the nodes granted the <em>same</em> slot. Counting holders per node would not
 * do: with 2 permits on 3 nodes, three callers that reach the nodes in different orders can each
 * win two nodes (A: x y, B: y z, C: z x) while no node ever counts more than 2. A slot held on a
 * majority has one holder, as a lock does, since two majorities share a node and a node gives a
 * slot to one owner; so at most the permit count of callers hold a permit. Nodes that agree on the
 * holders give the same (lowest free) slot, so grants agree unless callers race.
 */
public final class PermitSlots {

    /** semaphore_acquire.lua's grant: {@code {1, token, 1, slot}}. */
    private static final int SLOT_FIELD = 3;

    private PermitSlots() {
    }

    /**
     * Whether the grant counts: a quorum granted the same slot. Then the nodes that granted another
     * slot give it back ({@code abandon}, best effort). False when no slot has a quorum: the caller
     * gives every copy back and tries again after a random pause, as after a split.
     */
    public static boolean keepAgreed(Quorum.Votes<List<?>> votes, int quorum, ScriptCall abandon) {
        long slot = agreedSlot(votes, quorum);
        if (slot < 0) {
            return false;
        }
        for (int i = 0; i < votes.size(); i++) {
            long granted = grantedSlot(votes.reply(i));
            if (granted >= 0 && granted != slot) {
                abandon.on(votes.node(i)).exceptionally(error -> null);
            }
        }
        return true;
    }

    /** The slot that at least {@code quorum} of the nodes granted, or -1 when no slot has a quorum. */
    public static long agreedSlot(Quorum.Votes<List<?>> votes, int quorum) {
        Map<Long, Integer> grantsBySlot = new HashMap<>();
        for (int i = 0; i < votes.size(); i++) {
            long slot = grantedSlot(votes.reply(i));
            if (slot >= 0 && grantsBySlot.merge(slot, 1, Integer::sum) >= quorum) {
                return slot;
            }
        }
        return -1;
    }

    /** The slot a node's reply granted, or -1 when it did not grant (or did not answer). */
    public static long grantedSlot(List<?> reply) {
        if (reply == null || reply.size() <= SLOT_FIELD || (Long) reply.get(0) != 1) {
            return -1;
        }
        return (Long) reply.get(SLOT_FIELD);
    }
}
