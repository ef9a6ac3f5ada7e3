package dev.dlock.internal.redis;

import dev.dlock.internal.store.LockTarget;
import java.time.Duration;

/**
 * Where a lock's token floor lives: the key that remembers the highest fencing token granted (and,
 * on Redlock, released) lately, so that fresh tokens start above it even where the server clock
 * is behind the one that issued it (a promoted replica, another Redlock node). The one place that
 * names floor keys.
 *
 * <ul>
 * <li>one Redis, Sentinel, Redlock: {@code <prefix>token-floor}, one key per server;</li>
 * <li>Redis Cluster ({@code perSlot}): {@code <prefix>token-floor:{<tag>}}, one key per slot, with
 * a tag whose slot is the lock's, since a script may only touch keys of one slot.</li>
 * </ul>
 */
public final class TokenFloors {

    private final String prefix;
    private final String ttlMs;
    private final boolean perSlot;
    private final KindScripts.Floor single;

    /**
     * @param ttl     how long a floor outlives its last raise (expires: nothing is left behind)
     * @param perSlot Redis Cluster: one floor per slot instead of one per server
     */
    public TokenFloors(String keyPrefix, Duration ttl, boolean perSlot) {
        this.prefix = keyPrefix + "token-floor";
        this.ttlMs = Long.toString(ttl.toMillis());
        this.perSlot = perSlot;
        this.single = new KindScripts.Floor(prefix, ttlMs);
    }

    /** The floor the lock's scripts read and raise. */
    public KindScripts.Floor of(LockTarget target) {
        if (!perSlot) {
            return single;
        }
        return new KindScripts.Floor(prefix + ":{" + KeySlots.tagOf(KeySlots.slot(target.key())) + "}", ttlMs);
    }
}
