/**
 * The PostgreSQL backend ({@code PostgresStore}): {@link
 * dev.dlock.internal.postgres.PostgresStores} is its entry (a {@code StoreFactory} that checks or
 * creates the schema and fails loudly when the database cannot be used); {@code PostgresStore}
 * runs each lock operation as one call of one SQL function (the schema, tables and functions in
 * {@code PgSchema} and its {@code .sql} resource); wake-ups come over LISTEN/NOTIFY ({@code
 * PgWakeUps}) or, where LISTEN does not work, by polling; connections come from the application's
 * {@code DataSource} or a small pool of the client's own ({@code PgConnections}).
 *
 * <p>May use the store SPI, the settings it is given, the API's exceptions and values, JDBC and the
 * PostgreSQL driver (only this package touches the driver). Knows nothing of Redis, Lettuce
 * or the acquire loop.
 */
package dev.dlock.internal.postgres;
