package dev.dlock.internal;

/**
 * The Redis names of one lock: its hash key {@code <prefix>{name}}, its waiters' channel and the
 * fair lock's queue keys, which all share the {@code {name}} hash tag so that they map to one
 * Cluster slot.
 */
record LockTarget(String name, String key, String channel) {

    static LockTarget of(String prefix, String name) {
        String key = prefix + "{" + name + "}";
        return new LockTarget(name, key, key + ":released");
    }

    /** The fair lock's queue: a sorted set of waiter ids by ticket. */
    String queueKey() {
        return key + ":queue";
    }

    /** The fair lock's waiters: a hash of waiter id to deadline, lease and holder. */
    String waitersKey() {
        return key + ":waiters";
    }
}
