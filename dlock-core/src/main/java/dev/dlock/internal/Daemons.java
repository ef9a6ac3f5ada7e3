package dev.dlock.internal;

import java.util.concurrent.ThreadFactory;

/** Daemon threads for dlock's own executors: they must never keep an application's JVM alive. */
final class Daemons {

    private Daemons() {
    }

    static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
