package dev.dlock.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The kinds of lock, as a strategy: a kind chooses the scripts, the keys they touch and their
 * arguments, and a few properties of the acquire loop. {@link Acquisition}, both stores, the
 * watchdog and {@link RedisLock} serve every kind; nothing else differs between them.
 *
 * <p>Every kind's acquire script answers like acquire.lua ({@code {1, token, holdCount}},
 * {@code {0, retryAfterMs[, ticket]}}, {@code {-1}}) and its release like release.lua, so the
 * quorum logic of {@link QuorumStore} is the same for all. All kinds of one name share the key
 * {@code <prefix>{name}} and exclude each other (a reentrant or fair lock counts as a writer to a
 * read-write lock), though mixing kinds on one name is not meant to be done.
 */
enum LockKind {

    /** The reentrant lock: any waiter may win when it is released. */
    REENTRANT("lock", false, ""),

    /**
     * Granted in request order. Waiters are queued with a liveness deadline; the release hands the
     * lock to the first live waiter and wakes only it.
     */
    FAIR("fair lock", true, ""),

    /** The shared side of a read-write lock. */
    READ("read lock", false, "r"),

    /** The exclusive side of a read-write lock; a waiting writer holds new readers back. */
    WRITE("write lock", true, "w");

    private final String label;
    private final boolean queued;
    private final String mode;

    LockKind(String label, boolean queued, String mode) {
        this.label = label;
        this.queued = queued;
        this.mode = mode;
    }

    /** "fair lock" etc., for messages. */
    String label() {
        return label;
    }

    /**
     * Whether a waiter of this kind leaves a trace in Redis (a place in the queue, a waiting mark)
     * that lasts the waiter timeout: such a waiter asks again at least every third of it, keeps
     * one waiter id across its attempts, and leaves when it stops waiting.
     */
    boolean queued() {
        return queued;
    }

    /** Whether a release message names the waiter the lock was handed to ("token:waiterId"). */
    boolean handsOver() {
        return this == FAIR;
    }

    /** inspect.lua's view and reassert.lua's mode for holds of this kind. */
    String mode() {
        return mode;
    }

    ScriptCall acquire(LockTarget target, AcquireRequest request, Floor floor) {
        String owner = request.owner();
        String lease = Long.toString(request.leaseMs());
        String reentry = flag(request.reentry());
        return switch (this) {
            case REENTRANT -> new ScriptCall(LuaScript.ACQUIRE, keys(target, floor), owner, lease, request.holder(), reentry);
            case FAIR -> new ScriptCall(LuaScript.FAIR_ACQUIRE, keys(target, floor), owner, lease, request.holder(), reentry,
                    request.waiterId(), Long.toString(request.waiterTimeoutMs()), flag(request.mayWait()),
                    Long.toString(request.ticket()));
            case READ, WRITE -> new ScriptCall(LuaScript.RW_ACQUIRE, keys(target, floor), owner, lease, request.holder(),
                    reentry, mode, request.waiterId(), Long.toString(request.waiterTimeoutMs()), flag(request.mayWait()),
                    request.downgradeFrom());
        };
    }

    /** Gives back one hold; see release.lua for the reply. */
    ScriptCall release(LockTarget target, String owner, long token, Floor floor) {
        String[] keys = keys(target, floor);
        String tokenArg = Long.toString(token);
        return switch (this) {
            case REENTRANT -> new ScriptCall(LuaScript.RELEASE, keys, withFloorTtl(floor, owner, target.channel(), tokenArg));
            case FAIR -> new ScriptCall(LuaScript.FAIR_RELEASE, keys, withFloorTtl(floor, owner, target.channel(), tokenArg));
            case READ, WRITE -> new ScriptCall(LuaScript.RW_RELEASE, keys, owner, target.channel(), tokenArg, floorTtl(floor),
                    mode, "one");
        };
    }

    /**
     * Drops every hold of the owner at once.
     *
     * @param keepPlace fair lock over Redlock: the attempt that won a minority keeps its place in
     *                  the queue (same ticket) on the nodes it gives back; null otherwise
     */
    ScriptCall abandon(LockTarget target, String owner, Floor floor, AcquireRequest keepPlace) {
        String[] keys = keys(target, floor);
        return switch (this) {
            case REENTRANT -> new ScriptCall(LuaScript.ABANDON, keys, withFloorTtl(floor, owner, target.channel(), "0"));
            case FAIR -> keepPlace == null
                    ? new ScriptCall(LuaScript.FAIR_ABANDON, keys, owner, target.channel(), "0", floorTtl(floor), "")
                    : new ScriptCall(LuaScript.FAIR_ABANDON, keys, owner, target.channel(), "0", floorTtl(floor),
                            keepPlace.waiterId(), Long.toString(keepPlace.ticket()),
                            Long.toString(keepPlace.waiterTimeoutMs()), Long.toString(keepPlace.leaseMs()),
                            keepPlace.holder());
            case READ, WRITE -> new ScriptCall(LuaScript.RW_RELEASE, keys, owner, target.channel(), "0", floorTtl(floor),
                    mode, "all");
        };
    }

    /** The waiter stops waiting: its place or waiting mark goes; null for kinds that leave none. */
    ScriptCall leave(LockTarget target, String waiterId) {
        return switch (this) {
            case FAIR -> new ScriptCall(LuaScript.FAIR_LEAVE, keys(target, null), waiterId, target.channel());
            case WRITE -> new ScriptCall(LuaScript.RW_LEAVE, keys(target, null), waiterId, target.channel());
            case REENTRANT, READ -> null;
        };
    }

    ScriptCall inspect(LockTarget target) {
        return new ScriptCall(LuaScript.INSPECT, new String[] {target.key()}, mode);
    }

    ScriptCall reassert(Hold hold, long leaseMs) {
        return new ScriptCall(LuaScript.REASSERT, new String[] {hold.target.key()}, hold.owner, Long.toString(leaseMs),
                Long.toString(hold.token), Integer.toString(Math.max(1, hold.count)), hold.holder, mode);
    }

    /** The keys of this kind's scripts: the lock hash, the fair queue, then the token floor. */
    private String[] keys(LockTarget target, Floor floor) {
        List<String> keys = new ArrayList<>(4);
        keys.add(target.key());
        if (this == FAIR) {
            keys.add(target.queueKey());
            keys.add(target.waitersKey());
        }
        if (floor != null) {
            keys.add(floor.key());
        }
        return keys.toArray(String[]::new);
    }

    private static String[] withFloorTtl(Floor floor, String... args) {
        if (floor == null) {
            return args;
        }
        String[] withTtl = java.util.Arrays.copyOf(args, args.length + 1);
        withTtl[args.length] = floor.ttlMs();
        return withTtl;
    }

    private static String floorTtl(Floor floor) {
        return floor == null ? "0" : floor.ttlMs();
    }

    private static String flag(boolean value) {
        return value ? "1" : "0";
    }

    /** Redlock's per-node token floor: its key and how long it lives, in ms. */
    record Floor(String key, String ttlMs) {
    }
}
