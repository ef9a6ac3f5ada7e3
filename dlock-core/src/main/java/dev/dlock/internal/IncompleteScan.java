package dev.dlock.internal;

import java.util.List;

/**
 * A SCAN over a Redis Cluster that some masters answered and some did not: the keys found on those
 * that answered, and how the others failed. {@link LockInspector} lists the keys found and reports
 * the failed masters.
 */
final class IncompleteScan extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<String> keysFound;
    private final transient List<NodeFailure> failures;
    private final int mastersAsked;

    IncompleteScan(List<String> keysFound, List<NodeFailure> failures, int mastersAsked) {
        super(failures.size() + " of " + mastersAsked + " masters failed", failures.get(0));
        this.keysFound = List.copyOf(keysFound);
        this.failures = List.copyOf(failures);
        this.mastersAsked = mastersAsked;
    }

    List<String> keysFound() {
        return keysFound;
    }

    List<NodeFailure> failures() {
        return failures;
    }

    int mastersAsked() {
        return mastersAsked;
    }
}
