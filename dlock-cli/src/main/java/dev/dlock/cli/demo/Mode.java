package dev.dlock.cli.demo;

import java.util.List;
import java.util.Locale;

/** Which buyers the demo runs: without the lock, with it, or both (without first). */
public enum Mode {
    BOTH, LOCK, NOLOCK;

    /** The runs this mode stands for, in the order they are run. */
    List<Mode> runs() {
        return this == BOTH ? List.of(NOLOCK, LOCK) : List.of(this);
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
