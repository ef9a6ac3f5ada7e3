/**
 * dlock: distributed locks for Java on Redis. The API is the package {@code dev.dlock}, starting
 * at {@link dev.dlock.LockClient}; everything under {@code dev.dlock.internal} is implementation
 * and not exported.
 */
// Lettuce has no module descriptor, only an Automatic-Module-Name; an application that passes
// Lettuce types (ClientResources) to the builder reads it through this module all the same.
@SuppressWarnings("requires-transitive-automatic")
module dev.dlock {
    exports dev.dlock;

    requires transitive lettuce.core;
    requires io.netty.common;
    requires org.slf4j;
    // Lettuce announces Cluster topology changes on its event bus, a Reactor Flux
    requires reactor.core;
    // the PostgreSQL backend: a DataSource in the API, PgJDBC (LISTEN/NOTIFY) only when it is used
    requires transitive java.sql;
    requires static org.postgresql.jdbc;
}
