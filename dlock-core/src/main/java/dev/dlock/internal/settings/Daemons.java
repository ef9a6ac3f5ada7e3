package dev.dlock.internal.settings;

import java.util.concurrent.ThreadFactory;

/** Daemon threads for dlock's own executors: they must never keep an application's JVM alive. */
public final class Daemons {

    private Daemons() {
    }

    public static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
