package dev.dlock.internal.redis;

import dev.dlock.internal.store.AcquireRequest;
import dev.dlock.internal.store.HeldLock;
import dev.dlock.internal.store.LockTarget;
import java.util.List;

/**
 * One method per Lua script, building its call: the parameters are the script's KEYS and ARGV in
 * the order of its header, so each script's argument order is written here once. {@code floor}
 * is the lock's token floor ({@link TokenFloors}), or null for none.
 */
public final class Scripts {

    private Scripts() {
    }

    /**
     * acquire.lua
     *
     * @param waiterId "" where waiters are not queued (Redlock, replica acknowledgements)
     */
    public static ScriptCall acquire(LockTarget target, KindScripts.Floor floor, String owner, long leaseMs,
                              boolean reentry, String waiterId, long waiterTimeoutMs, boolean mayWait) {
        return new ScriptCall(LuaScript.ACQUIRE, queuedKeys(target, floor), owner, num(leaseMs), flag(reentry),
                floorTtl(floor), waiterId, num(waiterTimeoutMs), flag(mayWait));
    }

    /**
     * release.lua
     *
     * @param waitersQueued false where acquire.lua is never given a waiter id (Redlock)
     */
    public static ScriptCall release(LockTarget target, KindScripts.Floor floor, String owner, long token, boolean waitersQueued) {
        return new ScriptCall(LuaScript.RELEASE, queuedKeys(target, floor), owner, target.channel(), num(token),
                floorTtl(floor), flag(waitersQueued));
    }

    /** abandon.lua */
    public static ScriptCall abandon(LockTarget target, KindScripts.Floor floor, String owner, long token) {
        return new ScriptCall(LuaScript.ABANDON, queuedKeys(target, floor), owner, target.channel(), num(token),
                floorTtl(floor));
    }

    /** leave.lua */
    public static ScriptCall leave(LockTarget target, KindScripts.Floor floor, String waiterId) {
        return new ScriptCall(LuaScript.LEAVE, queuedKeys(target, floor), waiterId, target.channel(), floorTtl(floor));
    }

    /** handoff.lua (one Redis only) */
    public static ScriptCall handoff(LockTarget target, KindScripts.Floor floor, String fromOwner, int ownSubscriptions,
                              String toOwner, long leaseMs, String toWaiterId) {
        return new ScriptCall(LuaScript.HANDOFF, queuedKeys(target, floor), fromOwner, target.channel(),
                Integer.toString(ownSubscriptions), toOwner, num(leaseMs), floorTtl(floor), toWaiterId);
    }

    /**
     * record_holder.lua
     *
     * @param threads thread id (base 36), thread name, ...
     */
    public static ScriptCall recordHolder(String recordKey, String clientName, String host, long pid, long ttlMs,
                                   boolean replace, List<String> threads) {
        String[] args = new String[5 + threads.size()];
        args[0] = clientName;
        args[1] = host;
        args[2] = num(pid);
        args[3] = num(ttlMs);
        args[4] = flag(replace);
        for (int i = 0; i < threads.size(); i++) {
            args[5 + i] = threads.get(i);
        }
        return new ScriptCall(LuaScript.RECORD_HOLDER, new String[] {recordKey}, args);
    }

    /** forget_holder.lua */
    public static ScriptCall forgetHolder(String recordKey) {
        return new ScriptCall(LuaScript.FORGET_HOLDER, new String[] {recordKey});
    }

    /** read_holder.lua */
    public static ScriptCall readHolder(String recordKey, String threadId) {
        return new ScriptCall(LuaScript.READ_HOLDER, new String[] {recordKey}, threadId);
    }

    /** force_release.lua */
    public static ScriptCall forceRelease(LockTarget target, KindScripts.Floor floor) {
        return new ScriptCall(LuaScript.FORCE_RELEASE, keys(floor, target.key()), target.channel(), floorTtl(floor));
    }

    /** renew.lua: KEYS[i] the holds' keys, ARGV[1] the lease, ARGV[i+1] the owner of KEYS[i]. */
    public static ScriptCall renew(List<HeldLock> holds, long leaseMs) {
        String[] keys = new String[holds.size()];
        String[] args = new String[holds.size() + 1];
        args[0] = num(leaseMs);
        for (int i = 0; i < holds.size(); i++) {
            keys[i] = holds.get(i).target().key();
            args[i + 1] = holds.get(i).owner();
        }
        return new ScriptCall(LuaScript.RENEW, keys, args);
    }

    /** reassert.lua (Redlock only) */
    public static ScriptCall reassert(HeldLock hold, long leaseMs, String mode) {
        return new ScriptCall(LuaScript.REASSERT, new String[] {hold.target().key()}, hold.owner(), num(leaseMs),
                num(hold.token()), Integer.toString(hold.count()), hold.holder(), mode);
    }

    /** inspect.lua */
    public static ScriptCall inspect(LockTarget target, String view) {
        return new ScriptCall(LuaScript.INSPECT, new String[] {target.key()}, view);
    }

    /** fair_acquire.lua */
    public static ScriptCall fairAcquire(LockTarget target, KindScripts.Floor floor, String owner, long leaseMs, String holder,
                                  boolean reentry, String waiterId, long waiterTimeoutMs, boolean mayWait, long ticket) {
        return new ScriptCall(LuaScript.FAIR_ACQUIRE, keys(floor, target.key(), Scripts.queueKey(target), Scripts.waitersKey(target)),
                owner, num(leaseMs), holder, flag(reentry), waiterId, num(waiterTimeoutMs), flag(mayWait), num(ticket),
                floorTtl(floor));
    }

    /** fair_release.lua */
    public static ScriptCall fairRelease(LockTarget target, KindScripts.Floor floor, String owner, long token) {
        return new ScriptCall(LuaScript.FAIR_RELEASE, keys(floor, target.key(), Scripts.queueKey(target), Scripts.waitersKey(target)),
                owner, target.channel(), num(token), floorTtl(floor));
    }

    /**
     * fair_abandon.lua
     *
     * @param keepPlace the waiter that stays queued with its ticket, or null to keep none
     */
    public static ScriptCall fairAbandon(LockTarget target, KindScripts.Floor floor, String owner, long token,
                                  AcquireRequest keepPlace) {
        String[] keys = keys(floor, target.key(), Scripts.queueKey(target), Scripts.waitersKey(target));
        if (keepPlace == null) {
            return new ScriptCall(LuaScript.FAIR_ABANDON, keys, owner, target.channel(), num(token), floorTtl(floor), "");
        }
        return new ScriptCall(LuaScript.FAIR_ABANDON, keys, owner, target.channel(), num(token), floorTtl(floor),
                keepPlace.waiterId(), num(keepPlace.ticket()), num(keepPlace.waiterTimeoutMs()), num(keepPlace.leaseMs()),
                keepPlace.holder());
    }

    /** fair_leave.lua */
    public static ScriptCall fairLeave(LockTarget target, String waiterId) {
        return new ScriptCall(LuaScript.FAIR_LEAVE, new String[] {target.key(), Scripts.queueKey(target), Scripts.waitersKey(target)},
                waiterId, target.channel());
    }

    /** rw_acquire.lua */
    public static ScriptCall rwAcquire(LockTarget target, KindScripts.Floor floor, String owner, long leaseMs, String holder,
                                boolean reentry, String mode, String waiterId, long waiterTimeoutMs, boolean mayWait,
                                String downgradeFrom) {
        return new ScriptCall(LuaScript.RW_ACQUIRE, keys(floor, target.key()), owner, num(leaseMs), holder, flag(reentry),
                mode, waiterId, num(waiterTimeoutMs), flag(mayWait), downgradeFrom, floorTtl(floor));
    }

    /** rw_release.lua; {@code all}: drop every hold of the owner on this side (abandon) */
    public static ScriptCall rwRelease(LockTarget target, KindScripts.Floor floor, String owner, long token, String mode,
                                boolean all) {
        return new ScriptCall(LuaScript.RW_RELEASE, keys(floor, target.key()), owner, target.channel(), num(token),
                floorTtl(floor), mode, all ? "all" : "one");
    }

    /** rw_leave.lua */
    public static ScriptCall rwLeave(LockTarget target, String waiterId) {
        return new ScriptCall(LuaScript.RW_LEAVE, new String[] {target.key()}, waiterId, target.channel());
    }

    /** semaphore_acquire.lua */
    public static ScriptCall semaphoreAcquire(LockTarget target, KindScripts.Floor floor, String owner, long leaseMs,
                                       String holder, int permits) {
        return new ScriptCall(LuaScript.SEMAPHORE_ACQUIRE, keys(floor, target.key()), owner, num(leaseMs), holder,
                Integer.toString(permits), floorTtl(floor));
    }

    /** semaphore_release.lua (also abandons: a permit has no re-entries) */
    public static ScriptCall semaphoreRelease(LockTarget target, KindScripts.Floor floor, String owner, long token) {
        return new ScriptCall(LuaScript.SEMAPHORE_RELEASE, keys(floor, target.key()), owner, target.channel(),
                num(token), floorTtl(floor));
    }

    /** inspect_holds.lua */
    public static ScriptCall inspectHolds(LockTarget target) {
        return new ScriptCall(LuaScript.INSPECT_HOLDS, new String[] {target.key()});
    }

    /** The lock's hash, its queue of waiters and their entries, then the token floor's key when there is one. */
    /** The fair lock's (and queued reentrant waiters') queue: a sorted set of waiter ids by ticket. */
    public static String queueKey(LockTarget target) {
        return target.key() + ":queue";
    }

    /** The queued waiters: a hash of waiter id to deadline, lease and holder. */
    public static String waitersKey(LockTarget target) {
        return target.key() + ":waiters";
    }

    private static String[] queuedKeys(LockTarget target, KindScripts.Floor floor) {
        return keys(floor, target.key(), Scripts.queueKey(target), Scripts.waitersKey(target));
    }

    /** The lock's keys, then the token floor's when there is one. */
    private static String[] keys(KindScripts.Floor floor, String... lockKeys) {
        if (floor == null) {
            return lockKeys;
        }
        String[] keys = java.util.Arrays.copyOf(lockKeys, lockKeys.length + 1);
        keys[lockKeys.length] = floor.key();
        return keys;
    }

    private static String floorTtl(KindScripts.Floor floor) {
        return floor == null ? "0" : floor.ttlMs();
    }

    private static String num(long value) {
        return Long.toString(value);
    }

    private static String flag(boolean value) {
        return value ? "1" : "0";
    }
}
