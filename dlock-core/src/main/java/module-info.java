/**
 * dlock: distributed locks for Java on Redis, PostgreSQL, ZooKeeper or in memory. The API is the
 * package {@code dev.dlock}, starting at {@link dev.dlock.LockClient}; everything under
 * {@code dev.dlock.internal} is implementation and not exported.
 */
// Each store's client library is optional (requires static): an application adds the one of its
// store. On the module path an application on Redis resolves Lettuce itself (it requires lettuce.core,
// as it must to name ClientResources, or runs with --add-modules lettuce.core); only
// dev.dlock.RedisStore names a Lettuce type, so no other store loads Lettuce.
module dev.dlock {
    exports dev.dlock;

    requires static lettuce.core;
    requires static io.netty.common;
    requires org.slf4j;
    // Lettuce announces Cluster topology changes on its event bus, a Reactor Flux
    requires static reactor.core;
    // the PostgreSQL backend: a DataSource in the API, PgJDBC (LISTEN/NOTIFY) only when it is used
    requires transitive java.sql;
    requires static org.postgresql.jdbc;
    // The ZooKeeper backend's client is read from the class path (the build adds reads of the unnamed
    // module): its jars split packages between them, so they cannot be modules. An application on the
    // module path that uses it runs with --add-reads dev.dlock=ALL-UNNAMED.
}
