package dev.dlock.internal;

/** A successful acquire: the hold's fencing token, the hold count in Redis, and when the attempt began. */
record Grant(long token, int holdCount, long attemptStartNanos) {
}
