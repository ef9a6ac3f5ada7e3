package dev.dlock.internal.redis;

import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockHolds;
import dev.dlock.internal.store.LockState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Decoding of script replies, shared by the stores. */
public final class Replies {

    private Replies() {
    }

    /** acquire.lua's reply; see its header. */
    public static AcquireReply acquire(List<?> fields, long validUntilNanos) {
        long code = (Long) fields.get(0);
        if (code == 1) {
            return new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))),
                    ((Long) fields.get(2)).intValue(), validUntilNanos);
        }
        if (code == -1) {
            return new AcquireReply.LostOnReentry();
        }
        if (code == -2) {
            return new AcquireReply.PermitsDiffer(((Long) fields.get(1)).intValue());
        }
        long ticket = fields.size() > 2 ? Long.parseLong(String.valueOf(fields.get(2))) : 0;
        return new AcquireReply.Busy((Long) fields.get(1), false, ticket);
    }

    private static final int FIELDS_PER_HOLD = 6;

    /** inspect_holds.lua's reply; see its header. Holds sorted by token. */
    public static LockHolds holds(List<?> reply) {
        List<LockHolds.HoldState> holds = new ArrayList<>();
        for (int i = 1; i + FIELDS_PER_HOLD <= reply.size(); i += FIELDS_PER_HOLD) {
            holds.add(new LockHolds.HoldState(String.valueOf(reply.get(i)), ((Long) reply.get(i + 1)).intValue(),
                    Long.parseLong(String.valueOf(reply.get(i + 2))), String.valueOf(reply.get(i + 3)),
                    (Long) reply.get(i + 4), (Long) reply.get(i + 5) == 1));
        }
        holds.sort(Comparator.comparingLong(LockHolds.HoldState::token));
        return new LockHolds(((Long) reply.get(0)).intValue(), holds);
    }

    /** inspect.lua's reply; see its header. */
    public static LockState state(List<?> fields) {
        if (fields.isEmpty()) {
            return LockState.FREE;
        }
        return new LockState(String.valueOf(fields.get(0)), ((Long) fields.get(1)).intValue(),
                Long.parseLong(String.valueOf(fields.get(2))), String.valueOf(fields.get(3)), (Long) fields.get(4),
                (Long) fields.get(5));
    }

    /** Runs renew.lua for the holds (of any kind) on one node: per hold 1 renewed, 0 gone, -1 someone else's. */
    public static CompletableFuture<long[]> renewOn(RedisNode node, List<HeldLock> holds, long leaseMs) {
        return Scripts.renew(holds, leaseMs).on(node).thenApply(reply -> {
            List<?> results = (List<?>) reply;
            long[] outcomes = new long[holds.size()];
            for (int i = 0; i < outcomes.length; i++) {
                outcomes[i] = (Long) results.get(i);
            }
            return outcomes;
        });
    }
}
