package dev.dlock;

import dev.dlock.testing.ZooKeeperEnsemble;

/**
 * The one ZooKeeper ensemble (3 servers) that every {@link LockServers} with ZooKeeper in this JVM
 * uses. Starting an ensemble is three server JVMs and a leader election, seconds on a loaded
 * machine, and the classes that use it need a plain lock store only: after each test {@link
 * LockServers} resumes paused servers, starts killed ones and deletes every lock node, so a class
 * finds it as healthy and empty as one of its own. It starts with the first class that needs it and
 * stops when the JVM exits (the harness's reaper kills its servers). Tests of ZooKeeper's own faults
 * (sessions, leader changes) start an ensemble of their own.
 */
final class SharedZooKeeper {

    private static final ZooKeeperEnsemble ENSEMBLE = ZooKeeperEnsemble.of(3);
    private static boolean started;

    private SharedZooKeeper() {
    }

    /** @return the shared ensemble, not started before {@link #start()} */
    static ZooKeeperEnsemble ensemble() {
        return ENSEMBLE;
    }

    /** Starts the shared ensemble unless it runs, and waits until it serves. */
    static synchronized void start() {
        if (started) {
            ENSEMBLE.heal();
            return;
        }
        try {
            ENSEMBLE.start();
        } catch (RuntimeException e) {
            ENSEMBLE.close();
            throw e;
        }
        started = true;
    }
}
