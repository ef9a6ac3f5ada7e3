package dev.dlock.internal;

/** The watchdog's outcome for one hold. */
enum Renewal {
    /** The lease was extended. */
    RENEWED,
    /** The lock is gone or owned by someone else: the hold is lost. */
    GONE,
    /** Redis did not answer (enough): the hold is lost if its validity runs out before a renewal. */
    UNKNOWN
}
