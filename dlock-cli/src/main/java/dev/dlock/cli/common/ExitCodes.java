package dev.dlock.cli.common;

/**
 * Exit codes of the {@code dlock} command. {@code exec} passes the command's own code through
 * otherwise, so dlock's codes avoid those commands commonly use: 0 to 2 are taken by nearly every
 * program (dlock keeps flock(1)'s meaning for 1 and the usual "usage" meaning for 2), 64 to 78 by
 * sysexits(3), 124 to 127 by timeout(1) and the shell, and 128 + N by a death from signal N.
 */
public final class ExitCodes {

    public static final int OK = 0;
    /** exec: the lock was not acquired within {@code --wait} (as flock -w). */
    public static final int NOT_ACQUIRED = 1;
    /** release: the lock was not held. demo: the locked mode did not sell exactly the stock. */
    public static final int FAILED = 1;
    /** Bad input (flags, durations, URL, a demo metrics port that cannot be listened on): nothing was run. */
    public static final int USAGE = 2;
    /**
     * Redis unreachable or failing (EX_UNAVAILABLE): for {@code exec} through the whole
     * {@code --wait} (or, without one, the outage tolerance of 30 s); nothing was run.
     */
    public static final int REDIS_UNAVAILABLE = 69;
    /** A bug in dlock (EX_SOFTWARE); the message asks for a report. */
    public static final int INTERNAL_ERROR = 70;
    /** exec: the lock was lost while the command ran, so the command was stopped. */
    public static final int LOCK_LOST = 122;
    /** exec: the command was found but could not be run (as timeout(1) and the shell). */
    public static final int CANNOT_RUN = 126;
    /** exec: the command was not found (as timeout(1) and the shell). */
    public static final int NOT_FOUND = 127;
    /** A process killed by signal N exits with 128 + N (130 for SIGINT, 143 for SIGTERM). */
    public static final int SIGNAL_BASE = 128;

    private ExitCodes() {
    }
}
