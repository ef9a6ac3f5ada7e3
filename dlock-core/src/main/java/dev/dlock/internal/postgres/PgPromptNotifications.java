package dev.dlock.internal.postgres;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.core.BaseConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes PgJDBC hand over notifications as soon as they arrive, on a connection that only LISTENs.
 *
 * <p>{@code PGConnection.getNotifications(timeout)} blocks until a message comes, reads it, and then
 * asks whether more are pending before it returns. PgJDBC 42.x answers that question with a read
 * under a 1 ms socket timeout ({@code PGStream.hasMessagePending}), and nothing in that path ever
 * arms the rate limit it has for it ({@code nextStreamAvailableCheckTime}): every call that got a
 * notification spends 1 ms more in the driver. A waiter in another client then learns of a release
 * 1 ms late, which is most of a cross-client handoff (measured: 1.15 ms from a NOTIFY's commit to
 * its delivery, against a 32 µs round trip; {@code PostgresBench}). Arming the limit for good leaves
 * PgJDBC the check of the bytes it has already read, which needs no wait; a message that comes later
 * is read by the next call, which blocks for it.
 *
 * <p>The field is PgJDBC's private state: where it is not found (another driver version, a security
 * manager), nothing changes and notifications come 1 ms late, as they would without dlock.
 */
public final class PgPromptNotifications {

    private static final Logger LOG = LoggerFactory.getLogger(PgPromptNotifications.class);
    private static final String STREAM_FIELD = "pgStream";
    private static final String CHECK_FIELD = "nextStreamAvailableCheckTime";

    private PgPromptNotifications() {
    }

    /** @return whether PgJDBC no longer waits after a notification on {@code connection} */
    public static boolean apply(Connection connection) {
        return setNextCheck(connection, Long.MAX_VALUE);
    }

    /** Gives {@code connection} PgJDBC's behaviour back (before it returns to an application's pool). */
    public static void undo(Connection connection) {
        setNextCheck(connection, 0L);
    }

    private static boolean setNextCheck(Connection connection, long value) {
        try {
            Object executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
            Object stream = field(executor.getClass(), STREAM_FIELD).get(executor);
            field(stream.getClass(), CHECK_FIELD).setLong(stream, value);
            return true;
        } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
            LOG.debug("PgJDBC's pending-message check left as it is (each notification reaches dlock 1 ms late): {}",
                    e.toString());
            return false;
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field field = c.getDeclaredField(name);
                field.setAccessible(true);
                return field;
            } catch (NoSuchFieldException e) {
                // declared higher up
            }
        }
        throw new NoSuchFieldException(type.getName() + "." + name);
    }
}
