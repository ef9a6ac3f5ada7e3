package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** dlock.store=postgres: the locks in the database of the application's DataSource. */
class PostgresStoreTest {

    private static PostgresServer postgres;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, DlockAutoConfiguration.class));

    @BeforeAll
    static void start() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stop() {
        postgres.close();
    }

    @Test
    void theLocksLiveInTheApplicationsDatabaseInTheSchemaNamed() {
        runner.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(), "dlock.store=postgres",
                "dlock.postgres.schema=locks").run(context -> {
                    assertThat(context).hasNotFailed();
                    DistributedLock lock = context.getBean(LockClient.class).getLock("invoice:7");
                    lock.lock();
                    try {
                        assertThat(postgres.sql("SELECT name FROM locks.dlock_hold")).isEqualTo("dlock:{invoice:7}");
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void withoutADataSourceTheStartupFailsSayingWhatIsMissing() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class))
                .withPropertyValues("dlock.store=postgres").run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause().hasMessageContaining("dlock.store=postgres")
                        .hasMessageContaining("spring.datasource"));
    }

    @Test
    void aMissingSchemaWithCreationOffFailsTheStartupNamingTheSqlFile() {
        runner.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(), "dlock.store=postgres",
                "dlock.postgres.schema=absent", "dlock.postgres.create-schema=false").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("dev/dlock/postgres/V1__dlock.sql"));
    }
}
