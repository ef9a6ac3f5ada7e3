/**
 * Where the locks live, from the global store options and their environment variables: one
 * {@code StoreOptions} class per store ({@code RedisOptions}: {@code --redis}, {@code --redlock},
 * {@code --cluster}; {@code PostgresOptions}: {@code --postgres} and its settings;
 * {@code ZooKeeperOptions}: {@code --zookeeper}), each a picocli mixin with its checks, messages and
 * the library's store it makes; {@code Stores} lists them and picks the one a command line names
 * ({@code ClientOptions}); {@code ConnectWithin} builds the client while the store starts. Uses
 * {@code common} only; no command.
 */
package dev.dlock.cli.store;
