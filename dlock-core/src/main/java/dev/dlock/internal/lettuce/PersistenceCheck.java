package dev.dlock.internal.lettuce;

import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns (log WARN, once per node of a client, when the client is built) when the Redis that
 * holds the locks keeps neither an append-only file nor RDB snapshots: restarted, such a server
 * has forgotten every lock while their leases still run, and a second holder can get in. Where
 * the server refuses CONFIG (managed Redis, ACLs) nothing is said: the setting is unknown.
 */
public final class PersistenceCheck {

    private static final Logger LOG = LoggerFactory.getLogger(PersistenceCheck.class);

    private PersistenceCheck() {
    }

    /** Asks in the background; never delays or fails the build. */
    public static void warnIfNone(LettuceNode node) {
        node.configGet("appendonly", "save").whenComplete((config, error) -> {
            if (error == null && withoutPersistence(config)) {
                LOG.warn("Redis at {} has neither AOF (appendonly no) nor RDB snapshots (save \"\"): if it restarts "
                        + "it forgets every lock while their leases run, and another holder can get in at once; "
                        + "turn on appendonly (with appendfsync always for the strongest guarantee) or keep the "
                        + "server down for one lease after a restart", node.address());
            } else if (error != null) {
                LOG.debug("cannot ask Redis at {} for its persistence settings: {}", node.address(), error.toString());
            }
        });
    }

    public static boolean withoutPersistence(Map<String, String> config) {
        String appendOnly = config.get("appendonly");
        String save = config.get("save");
        return "no".equalsIgnoreCase(appendOnly) && save != null && save.isBlank();
    }
}
