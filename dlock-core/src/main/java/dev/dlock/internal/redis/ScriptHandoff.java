package dev.dlock.internal.redis;

import dev.dlock.internal.settings.Ticker;
import dev.dlock.internal.store.AcquireReply;
import dev.dlock.internal.store.LockTarget;
import dev.dlock.internal.store.StoreHandoff;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One Redis's {@link StoreHandoff}: handoff.lua, the release and the grant in one script call. */
final class ScriptHandoff implements StoreHandoff {

    private final RedisNode node;
    private final TokenFloors floors;
    private final Ticker ticker;
    private final long commandTimeoutMs;

    ScriptHandoff(RedisNode node, TokenFloors floors, Ticker ticker, long commandTimeoutMs) {
        this.node = node;
        this.floors = floors;
        this.ticker = ticker;
        this.commandTimeoutMs = commandTimeoutMs;
    }

    @Override
    public CompletableFuture<StoreHandoff.Reply> handOff(LockTarget target, String fromOwner, int ownSubscriptions,
                                                         String toOwner, long leaseMs, String toWaiterId) {
        long startNanos = ticker.nanoTime();
        return Scripts.handoff(target, floors.of(target), fromOwner, ownSubscriptions, toOwner, leaseMs, toWaiterId)
                .on(node)
                .handle((reply, error) -> {
                    if (error != null) {
                        throw RedisFailures.commandFailed("release", target, node, commandTimeoutMs, error);
                    }
                    List<?> fields = (List<?>) reply;
                    long code = (Long) fields.get(0);
                    if (code == 1) {
                        AcquireReply.Granted grant = new AcquireReply.Granted(Long.parseLong(String.valueOf(fields.get(1))), 1,
                                startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs));
                        return new StoreHandoff.Reply(grant, StoreHandoff.Outcome.HANDED_TO_OWN_WAITER, "");
                    }
                    if (code == 2) {
                        return new StoreHandoff.Reply(null, StoreHandoff.Outcome.HANDED_TO_QUEUED,
                                String.valueOf(fields.get(1)));
                    }
                    return new StoreHandoff.Reply(null, code == -1 ? StoreHandoff.Outcome.NOT_OWNER
                            : StoreHandoff.Outcome.RELEASED, "");
                });
    }
}
