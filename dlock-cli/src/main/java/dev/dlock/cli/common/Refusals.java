package dev.dlock.cli.common;

import dev.dlock.LockBackendException;
import dev.dlock.NodeError;
import java.util.List;

/**
 * The store's answers that no retry can mend: on Redis wrong credentials, a user without the
 * permission, a database number the server does not have; on PostgreSQL what the library calls
 * {@link NodeError.Cause#REFUSED} (by SQLSTATE: authentication, a missing database or privilege,
 * dlock's tables of another shape, a standby). They are configuration errors, reported at once (exit
 * 2), not outages waited out for the whole {@code --wait} and then reported as unreachable (69).
 */
public final class Refusals {

    private static final List<String> PERMANENT = List.of("WRONGPASS", "NOAUTH", "NOPERM", "ERR invalid password",
            "ERR AUTH", "ERR Client sent AUTH", "ERR DB index is out of range", "ERR invalid DB index");

    private Refusals() {
    }

    /** Whether the failure, or a server's error in it, is one of those refusals. */
    public static boolean isPermanent(LockBackendException failure) {
        for (NodeError error : failure.nodeErrors()) {
            if (error.cause() == NodeError.Cause.REFUSED || refusal(error.message())) {
                return true;
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LockBackendException backend && backend != failure && isPermanent(backend)) {
                return true;
            }
            if (refusal(cause.getMessage())) {
                return true;
            }
        }
        return false;
    }

    private static boolean refusal(String message) {
        if (message == null) {
            return false;
        }
        for (String marker : PERMANENT) {
            if (message.startsWith(marker) || message.contains(": " + marker)) {
                return true;
            }
        }
        return false;
    }
}
