package dev.dlock.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The builder's refusals speak of its options ({@code commandTimeout PT20S must be shorter than a
 * third of defaultLease PT30S}); a Spring user set properties. Each option set by a property is
 * named by that property in the message, the builder's name beside it for options a customizer
 * may have set too.
 */
final class PropertyNames {
    private static final Pattern OPTION = Pattern.compile("\\b(RedisStore\\.standalone|RedisStore\\.redlock|RedisStore\\.cluster|nodeTimeout"
            + "|keyPrefix|defaultLease|commandTimeout|waiterTimeout|outageTolerance|clientName|replicaAcks"
            + "|slowHoldThreshold|slowWaitThreshold)\\b");

    private PropertyNames() {
    }

    static String inMessage(String message, DlockProperties properties, RedisAddress address) {
        if (message == null) {
            return null;
        }
        Map<String, String> set = new LinkedHashMap<>();
        // no Redis address with dlock.store=postgres
        String source = address == null ? "dlock.store" : address.source();
        set.put("RedisStore.standalone", source.startsWith("dlock.") ? RedisAddress.URL : source);
        set.put("RedisStore.redlock", RedisAddress.REDLOCK_NODES);
        set.put("RedisStore.cluster", source.startsWith("dlock.") ? RedisAddress.CLUSTER_NODES : source);
        put(set, "nodeTimeout", "dlock.redis.redlock.node-timeout", properties.getRedis().getRedlock().getNodeTimeout());
        put(set, "keyPrefix", "dlock.key-prefix", properties.getKeyPrefix());
        put(set, "defaultLease", "dlock.default-lease", properties.getDefaultLease());
        put(set, "commandTimeout", "dlock.command-timeout", properties.getCommandTimeout());
        put(set, "waiterTimeout", "dlock.waiter-timeout", properties.getWaiterTimeout());
        put(set, "outageTolerance", "dlock.outage-tolerance", properties.getOutageTolerance());
        put(set, "clientName", "dlock.client-name", properties.getClientName());
        put(set, "slowHoldThreshold", "dlock.slow-hold-threshold", properties.getSlowHoldThreshold());
        put(set, "slowWaitThreshold", "dlock.slow-wait-threshold", properties.getSlowWaitThreshold());
        if (properties.getRedis().getReplicaAcks().getReplicas() > 0) {
            set.put("replicaAcks", "dlock.redis.replica-acks");
        }
        Matcher options = OPTION.matcher(message);
        StringBuilder named = new StringBuilder();
        while (options.find()) {
            String property = set.get(options.group(1));
            options.appendReplacement(named, Matcher.quoteReplacement(
                    property == null ? options.group(1) : property + " (" + options.group(1) + ")"));
        }
        options.appendTail(named);
        return named.toString();
    }

    private static void put(Map<String, String> set, String option, String property, Object value) {
        if (value != null) {
            set.put(option, property);
        }
    }
}
