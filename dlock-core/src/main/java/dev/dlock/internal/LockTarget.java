package dev.dlock.internal;

/**
 * The Redis names of one lock: its hash key {@code <prefix>{name}} and its waiters' channel,
 * which share the {@code {name}} hash tag so that they map to one Cluster slot.
 */
record LockTarget(String name, String key, String channel) {

    static LockTarget of(String prefix, String name) {
        String key = prefix + "{" + name + "}";
        return new LockTarget(name, key, key + ":released");
    }
}
