package dev.dlock.internal.settings;

import java.time.Duration;
import java.util.List;

/** Settings for tests that build an engine or a store without a client: the defaults but for the options given (null: the default). */
public final class TestSettings {

    private TestSettings() {
    }

    public static Settings settings(String redisUri, List<String> redlockNodes, List<String> clusterNodes,
                                    Duration redlockNodeTimeout, Duration commandTimeout, Duration waiterTimeout,
                                    String clientName, ReplicaAcks replicaAcks) {
        return new Options(redisUri, redlockNodes, clusterNodes, redlockNodeTimeout, null, null, commandTimeout,
                waiterTimeout, clientName, null, replicaAcks, null, null, false, null).settings();
    }
}
