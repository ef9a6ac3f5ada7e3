package dev.dlock.internal.store;

/** The watchdog's outcome for one hold. */
public enum Renewal {
    /** The lease was extended. */
    RENEWED,
    /** The lock is gone or owned by someone else: the hold is lost. */
    GONE,
    /** The store did not answer (enough): the hold is lost if its validity runs out before a renewal. */
    UNKNOWN
}
