package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.testing.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/** dlock.store=postgres: the locks in the database of the application's DataSource. */
@ExtendWith(OutputCaptureExtension.class)
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
                        assertThat(postgres.sql("SELECT name FROM locks.dlock_hold WHERE lease_end > clock_timestamp()")).isEqualTo("dlock:{invoice:7}");
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void theStoreBindsWhateverItsCaseAndTheActuatorNamesPostgresql() {
        runner.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(), "dlock.store=Postgres").run(context -> {
            assertThat(context).hasNotFailed();
            LockClient client = context.getBean(LockClient.class);
            assertThat(new dev.dlock.spring.actuate.DlockHealthIndicator(client).health().getDetails())
                    .containsEntry("postgresql", "postgresql (application DataSource)").doesNotContainKey("redis");
            dev.dlock.spring.actuate.LocksEndpoint.Locks locks = new dev.dlock.spring.actuate.LocksEndpoint(client).locks(null);
            assertThat(locks.postgresql()).isEqualTo("postgresql (application DataSource)");
            assertThat(locks.redis()).isNull();
        });
    }

    @Test
    void aRedisUriBesidePostgresFailsTheStartupNamingBoth() {
        runner.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(), "dlock.store=postgres",
                "dlock.redis.url=redis://127.0.0.1:6379").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("dlock.store=postgres")
                .hasMessageContaining("dlock.redis.url is set too"));
    }

    @Test
    void aStoreThatIsNeitherFailsTheStartupNamingTheProperty() {
        runner.withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl(), "dlock.store=mysql")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("dlock.store"));
    }

    @Test
    void aRefusalIsThrownEvenWhereAnOutageWouldBeSkipped() {
        postgres.sql("DROP ROLE IF EXISTS job_role; CREATE ROLE job_role LOGIN PASSWORD 'pw'; "
                + "CREATE SCHEMA IF NOT EXISTS jobs AUTHORIZATION dlock; GRANT USAGE, CREATE ON SCHEMA jobs TO job_role");
        runner.withBean(Nightly.class)
                .withPropertyValues("spring.datasource.url=" + postgres.jdbcUrl().substring(0, postgres.jdbcUrl().indexOf('?')),
                        "spring.datasource.username=job_role", "spring.datasource.password=pw", "dlock.store=postgres",
                        "dlock.postgres.schema=jobs", "dlock.postgres.polling=50ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Nightly job = context.getBean(Nightly.class);
                    assertThat(job.run()).isEqualTo("ran");
                    postgres.sql("REVOKE USAGE ON SCHEMA jobs FROM job_role");
                    org.assertj.core.api.Assertions.assertThatThrownBy(job::run)
                            .isInstanceOf(dev.dlock.LockBackendException.class).hasMessageContaining("permission denied");
                });
    }

    static class Nightly {
        @WithLock(key = "'nightly'", waitTime = "0", onBusy = WithLock.OnBusy.SKIP)
        public String run() {
            return "ran";
        }
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

    @Test
    void aMissingSchemaIsInSpringBootsReportWithTheAction(CapturedOutput output) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
                .properties("spring.datasource.url=" + postgres.jdbcUrl(), "dlock.store=postgres",
                        "dlock.postgres.schema=absent", "dlock.postgres.create-schema=false", "spring.main.banner-mode=off")
                .run().close()).hasStackTraceContaining("V1__dlock.sql");
        StartupFailureReportTest.assertReported(output.toString(), "V1__dlock.sql", "Run that SQL file in your migrations");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DataSourceAutoConfiguration.class, DlockAutoConfiguration.class})
    static class Application {
    }
}
