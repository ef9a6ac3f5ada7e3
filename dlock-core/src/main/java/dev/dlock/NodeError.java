package dev.dlock;

import java.util.Objects;

/**
 * How one server of the store failed a call, as carried by {@link LockBackendException#nodeErrors()}:
 * on one Redis or one PostgreSQL the failed server, on Redlock every node that failed during the
 * operation.
 *
 * @param address where the server lives, e.g. {@code redis://host:port} (never with the password)
 * @param cause   what failed; it says whether the command may have run
 * @param message what the server or the connection said, e.g. the error reply's text
 */
public record NodeError(String address, Cause cause, String message) {

    /**
     * Checks that every component is given.
     *
     * @param address where the server lives, {@code redis://host:port} (never with the password)
     * @param cause   what failed; it says whether the command may have run
     * @param message what the server or the connection said, e.g. the error reply's text
     * @throws NullPointerException if an argument is null
     */
    public NodeError {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(message, "message");
    }

    /** What failed on one server (not a kind of lock: {@link LockKind} is). Constants may be added in later versions. */
    public enum Cause {
        /** No reply in time: the command may or may not have run on the server. */
        TIMEOUT(true),
        /** Not connected, or the connection was refused: the command was not run. */
        UNREACHABLE(false),
        /** The server replied with an error: the command was not applied. */
        ERROR_REPLY(false),
        /** The lock's key holds a value of another type, written by something other than dlock. */
        WRONG_TYPE(false),
        /**
         * The server refused the client or the operation for a reason no retry mends: wrong
         * credentials, a database that does not exist, a missing privilege, dlock's tables of
         * another shape or a server that cannot take writes at start. A configuration error: the
         * command was not run.
         */
        REFUSED(false),
        /** Any other failure of the client or the connection: the outcome is unknown. */
        OTHER(true);

        private final boolean outcomeUnknown;

        Cause(boolean outcomeUnknown) {
            this.outcomeUnknown = outcomeUnknown;
        }

        /**
         * Whether the command may have been applied although it failed.
         *
         * @return true for {@link #TIMEOUT} and {@link #OTHER}
         */
        public boolean outcomeUnknown() {
            return outcomeUnknown;
        }
    }

    /** {@code address: message}, with the cause in words. */
    @Override
    public String toString() {
        return address + ": " + switch (cause) {
            case TIMEOUT, OTHER -> message;
            case UNREACHABLE -> "unreachable: " + message;
            case ERROR_REPLY, WRONG_TYPE -> "error reply: " + message;
            case REFUSED -> "refused: " + message;
        };
    }
}
