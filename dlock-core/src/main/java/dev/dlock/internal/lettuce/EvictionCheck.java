package dev.dlock.internal.lettuce;

import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns (log WARN, once per node of a client, when the client is built) when the Redis that holds
 * the locks may evict keys: with {@code maxmemory} set and a policy other than {@code noeviction},
 * memory pressure can delete a lock's key while its holder works, and a second holder gets in at
 * once. The {@code volatile-*} policies pick among keys with a time to live, which every lock key
 * has, so a shared cache makes lock keys the first candidates. The holder hears of it at its next
 * renewal at the latest (the watchdog finds the key gone). Where the server refuses CONFIG nothing
 * is said: the setting is unknown.
 */
public final class EvictionCheck {

    private static final Logger LOG = LoggerFactory.getLogger(EvictionCheck.class);

    private EvictionCheck() {
    }

    /** Asks in the background; never delays or fails the build. */
    public static void warnIfEvicting(LettuceNode node) {
        node.configGet("maxmemory", "maxmemory-policy").whenComplete((config, error) -> {
            if (error == null && mayEvict(config)) {
                LOG.warn("Redis at {} may evict lock keys (maxmemory {} with maxmemory-policy {}): under memory pressure "
                        + "it can delete a held lock's key and let another holder in before the holder hears of it; "
                        + "set maxmemory-policy noeviction on the server that holds the locks, or give the locks a "
                        + "server of their own", node.address(), config.get("maxmemory"), config.get("maxmemory-policy"));
            } else if (error != null) {
                LOG.debug("cannot ask Redis at {} for its eviction settings: {}", node.address(), error.toString());
            }
        });
    }

    /** Whether keys can be evicted: a memory limit (0 is none) and a policy that frees memory by deleting keys. */
    public static boolean mayEvict(Map<String, String> config) {
        String maxMemory = config.get("maxmemory");
        String policy = config.get("maxmemory-policy");
        return maxMemory != null && !"0".equals(maxMemory.trim()) && policy != null
                && !"noeviction".equalsIgnoreCase(policy.trim());
    }
}
