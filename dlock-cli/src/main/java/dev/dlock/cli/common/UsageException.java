package dev.dlock.cli.common;

/** Bad input the user can fix: reported on one line, exit code {@link ExitCodes#USAGE}. */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
