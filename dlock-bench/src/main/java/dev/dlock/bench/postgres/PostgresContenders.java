package dev.dlock.bench.postgres;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The contenders {@link PostgresBench} runs beside dlock: Spring Integration's
 * {@code JdbcLockRegistry} on the schema its docs give, and the raw floor.
 */
final class PostgresContenders {

    private PostgresContenders() {
    }

    /** One lock implementation: a thread-bound lock per name. */
    interface Subject extends AutoCloseable {
        Lock lock(String name);

        @Override
        void close();

        /** A subject whose locks come from {@code locks}, closed by {@code close}. */
        static Subject of(Function<String, Lock> locks, Runnable close) {
            return new Subject() {
                @Override
                public Lock lock(String name) {
                    return locks.apply(name);
                }

                @Override
                public void close() {
                    close.run();
                }
            };
        }
    }

    static Subject jdbcLockRegistry(DataSource pool) {
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return Subject.of(registry::obtain, repository::close);
    }

    /**
     * The raw floor: {@code INSERT ... ON CONFLICT (name) DO UPDATE ... WHERE <expired> RETURNING token}
     * (the lease on the database's clock, the token from a sequence) and {@code DELETE ... WHERE name = ?
     * AND owner = ?}, one connection per lock.
     */
    static Subject raw(DataSource pool) {
        return Subject.of(name -> new RawLock(pool, name), () -> { });
    }

    private static final class RawLock extends java.util.concurrent.locks.ReentrantLock {
        private static final long serialVersionUID = 1L;
        private final transient Connection connection;
        private final String name;
        private final String owner = java.util.UUID.randomUUID().toString();

        RawLock(DataSource pool, String name) {
            try {
                this.connection = pool.getConnection();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            this.name = name;
        }

        @Override
        public void lock() {
            // the floor: a lease on the database's clock, an owner and a token from a sequence,
            // taken over an expired holder in the same statement
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO raw_lock (name, owner, token, lease_end) VALUES (?, ?, nextval('raw_token'), "
                            + "clock_timestamp() + interval '30 seconds') ON CONFLICT (name) DO UPDATE SET "
                            + "owner = excluded.owner, token = excluded.token, lease_end = excluded.lease_end "
                            + "WHERE raw_lock.lease_end <= clock_timestamp() RETURNING token")) {
                insert.setString(1, name);
                insert.setString(2, owner);
                try (java.sql.ResultSet row = insert.executeQuery()) {
                    if (!row.next()) {
                        throw new IllegalStateException("the raw floor is measured uncontended only");
                    }
                }
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void unlock() {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM raw_lock WHERE name = ? AND owner = ?")) {
                delete.setString(1, name);
                delete.setString(2, owner);
                delete.executeUpdate();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    static void createRawSchema(DataSource pool) throws Exception {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE raw_lock (name text PRIMARY KEY, owner text NOT NULL, token bigint NOT NULL, "
                    + "lease_end timestamptz NOT NULL)");
            s.execute("CREATE SEQUENCE raw_token");
        }
    }

    /** The schema Spring Integration's docs give for PostgreSQL, read from its jar. */
    static void createJdbcLockRegistrySchema(DataSource pool) throws Exception {
        String sql;
        try (InputStream in = DefaultLockRepository.class.getResourceAsStream("/org/springframework/integration/jdbc/schema-postgresql.sql")) {
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String statement : sql.split(";")) {
                String trimmed = statement.strip();
                if (trimmed.contains("INT_LOCK")) {
                    s.execute(trimmed);
                }
            }
        }
    }
}
