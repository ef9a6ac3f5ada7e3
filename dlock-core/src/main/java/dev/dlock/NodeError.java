package dev.dlock;

import java.util.Objects;

/**
 * How one server of the store failed a call, as carried by {@link LockBackendException#nodeErrors()}:
 * on one Redis or one PostgreSQL the failed server, on Redlock every node that failed during the
 * operation.
 *
 * @param address where the server lives, e.g. {@code redis://host:port} (never with the password)
 * @param kind    what kind of failure it was; it says whether the command may have run
 * @param message what the server or the connection said, e.g. the error reply's text
 */
public record NodeError(String address, Kind kind, String message) {

    /**
     * Checks that every component is given.
     *
     * @param address where the server lives, {@code redis://host:port} (never with the password)
     * @param kind    what kind of failure it was; it says whether the command may have run
     * @param message what the server or the connection said, e.g. the error reply's text
     * @throws NullPointerException if an argument is null
     */
    public NodeError {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }

    /** The kinds of failure of one server. */
    public enum Kind {
        /** No reply in time: the command may or may not have run on the server. */
        TIMEOUT(true),
        /** Not connected, or the connection was refused: the command was not run. */
        UNREACHABLE(false),
        /** The server replied with an error: the command was not applied. */
        ERROR_REPLY(false),
        /** The lock's key holds a value of another type, written by something other than dlock. */
        WRONG_TYPE(false),
        /** Any other failure of the client or the connection: the outcome is unknown. */
        OTHER(true);

        private final boolean outcomeUnknown;

        Kind(boolean outcomeUnknown) {
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

    /** {@code address: message}, with the kind in words. */
    @Override
    public String toString() {
        return address + ": " + switch (kind) {
            case TIMEOUT, OTHER -> message;
            case UNREACHABLE -> "unreachable: " + message;
            case ERROR_REPLY, WRONG_TYPE -> "error reply: " + message;
        };
    }
}
