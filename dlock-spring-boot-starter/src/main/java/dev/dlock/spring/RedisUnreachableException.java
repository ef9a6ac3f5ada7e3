package dev.dlock.spring;

import dev.dlock.LockBackendException;

/** The client could not connect while the application started; see {@link DlockFailureAnalyzer}. */
final class RedisUnreachableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The address, without credentials, and the properties it came from. */
    private final String address;
    /** What to do about it. */
    private final String action;

    RedisUnreachableException(String address, LockBackendException cause) {
        this(address, cause, actionFor(cause));
    }

    private RedisUnreachableException(String address, LockBackendException cause, String action) {
        super("dlock could not connect to Redis at " + address + ": " + cause.getMessage() + ". " + action, cause);
        this.address = address;
        this.action = action;
    }

    /** Redis refusing the credentials is no Redis to start: the password is what to fix. */
    private static String actionFor(LockBackendException cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("WRONGPASS") || message.contains("NOAUTH") || message.contains("invalid password")) {
                return "Redis refused the credentials: set the user and password it expects in dlock.redis.url"
                        + " (redis://user:password@host:port) or in spring.data.redis.username and .password.";
            }
            if (message.contains(" refuses ") && message.contains(", which ")) {
                // connected, but a command dlock needs is renamed, disabled or not granted to the ACL user
                return "Redis answers but refuses a command dlock needs: grant it to the user (the ACL rule is in"
                        + " dlock's docs/deployments.md, Least privilege) or use a server that offers it.";
            }
        }
        return "Start Redis there, or set dlock.redis.url (or spring.data.redis.*) to a running one.";
    }

    String address() {
        return address;
    }

    String action() {
        return action;
    }
}
