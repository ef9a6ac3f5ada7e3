package dev.dlock.internal.store;

/**
 * One lock as every store names it: the name the application gave, its key {@code <prefix>{name}}
 * (the name within the client's key prefix; on Redis the key of its hash, whose {@code {name}}
 * hash tag keeps all of one lock's keys in one Cluster slot) and the channel its releases are
 * announced on.
 */
public record LockTarget(String name, String key, String channel) {

    public static LockTarget of(String prefix, String name) {
        String key = prefix + "{" + name + "}";
        return new LockTarget(name, key, key + ":released");
    }
}
