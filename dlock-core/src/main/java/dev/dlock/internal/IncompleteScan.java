package dev.dlock.internal;

import java.util.List;

/**
 * A SCAN over a Redis Cluster that some masters answered and some did not: what was found on those
 * that answered (keys, or the lock names the store made of them), and how the others failed.
 * {@link LockInspector} lists what was found and reports the failed masters.
 */
final class IncompleteScan extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<String> found;
    private final transient List<NodeFailure> failures;
    private final int mastersAsked;

    IncompleteScan(List<String> found, List<NodeFailure> failures, int mastersAsked) {
        super(failures.size() + " of " + mastersAsked + " masters failed", failures.get(0));
        this.found = List.copyOf(found);
        this.failures = List.copyOf(failures);
        this.mastersAsked = mastersAsked;
    }

    /** The same failures with {@code found} turned into something else (keys into lock names). */
    IncompleteScan found(List<String> other) {
        return new IncompleteScan(other, failures, mastersAsked);
    }

    List<String> found() {
        return found;
    }

    List<NodeFailure> failures() {
        return failures;
    }

    int mastersAsked() {
        return mastersAsked;
    }
}
