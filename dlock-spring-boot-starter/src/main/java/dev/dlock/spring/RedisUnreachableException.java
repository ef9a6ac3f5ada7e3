package dev.dlock.spring;

import dev.dlock.LockBackendException;

/** The client could not connect while the application started; see {@link DlockFailureAnalyzer}. */
final class RedisUnreachableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The address, without credentials, and the properties it came from. */
    private final String address;

    RedisUnreachableException(String address, LockBackendException cause) {
        super("dlock could not connect to Redis at " + address + ": " + cause.getMessage()
                + ". Start Redis there, or point dlock.redis-uri (or spring.data.redis.*) at a running one.", cause);
        this.address = address;
    }

    String address() {
        return address;
    }
}
