package dev.dlock.internal;

/** A lock's raw state as a store reads it; {@code owner} is null when free. */
record LockState(String owner, int holdCount, long token, String holder, long pttlMs) {

    static final LockState FREE = new LockState(null, 0, 0, "", 0);

    boolean isHeld() {
        return owner != null;
    }
}
