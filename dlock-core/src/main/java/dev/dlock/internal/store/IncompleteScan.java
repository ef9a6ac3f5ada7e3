package dev.dlock.internal.store;

import java.util.List;

/**
 * A SCAN over a Redis Cluster's masters or a Redlock's nodes that some answered and some did not: what
 * was found on those that answered (keys, or the lock names the store made of them), and how the others
 * failed. {@link dev.dlock.internal.observe.LockInspector} lists what was found and reports the
 * failed masters.
 */
public final class IncompleteScan extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<String> found;
    private final transient List<NodeFailure> failures;
    private final int mastersAsked;

    public IncompleteScan(List<String> found, List<NodeFailure> failures, int mastersAsked) {
        super(failures.size() + " of " + mastersAsked + " masters failed", failures.get(0));
        this.found = List.copyOf(found);
        this.failures = List.copyOf(failures);
        this.mastersAsked = mastersAsked;
    }

    /** The same failures with {@code found} turned into something else (keys into lock names). */
    public IncompleteScan found(List<String> other) {
        return new IncompleteScan(other, failures, mastersAsked);
    }

    public List<String> found() {
        return found;
    }

    public List<NodeFailure> failures() {
        return failures;
    }

    public int mastersAsked() {
        return mastersAsked;
    }
}
