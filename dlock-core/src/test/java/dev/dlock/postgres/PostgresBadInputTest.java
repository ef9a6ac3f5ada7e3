package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.testing.PostgresServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One clear error at build() for each thing that can be wrong with the database given. */
class PostgresBadInputTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    @Test
    void aUrlThatIsNotPostgresIsRefusedNamingIt() {
        assertThatThrownBy(() -> LockClient.builder().postgres("jdbc:mysql://db:3306/app?user=u&password=secret").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a PostgreSQL URL: 'mysql://db:3306/app'")
                .hasMessageNotContaining("secret");
    }

    @Test
    void aServerThatIsNotThereFailsTheBuildNamingIt() {
        String url = "jdbc:postgresql://127.0.0.1:1/dlock?user=dlock&password=x&connectTimeout=2";
        assertThatThrownBy(() -> LockClient.builder().postgres(url).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("postgresql://127.0.0.1:1/dlock")
                .hasMessageContaining("refused");
    }

    @Test
    void aWrongPasswordFailsTheBuildSayingSo() {
        String url = postgres.server().jdbcUrl().replace("password=" + postgres.server().password(), "password=wrong");
        assertThatThrownBy(() -> LockClient.builder().postgres(url).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("password authentication failed for user \"dlock\"")
                .hasMessageNotContaining("wrong");
    }

    @Test
    void aMissingSchemaWithCreationOffFailsTheBuildNamingTheSqlToRun() {
        assertThatThrownBy(() -> LockClient.builder().postgres(postgres.server().jdbcUrl())
                .postgresSchema("not_created").postgresCreateSchema(false).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("schema \"not_created\"")
                .hasMessageContaining("dev/dlock/postgres/V1__dlock.sql");
        assertThat(postgres.server().sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'not_created'")).isEqualTo("0");
    }

    @Test
    void functionsOfAnEarlierBuildOfTheSchemaAreReplacedAtBuild() {
        LockClient.builder().postgres(postgres.server().jdbcUrl()).postgresSchema("earlier").build().close();
        // an earlier build's hand-off took one argument less
        postgres.server().sql("DROP FUNCTION earlier.dlock_hand_off(text, text, integer, text, bigint, text, boolean)");
        try (LockClient client = LockClient.builder().postgres(postgres.server().jdbcUrl()).postgresSchema("earlier").build()) {
            assertThat(postgres.server().sql("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    + "WHERE n.nspname = 'earlier' AND p.proname = 'dlock_hand_off' AND p.pronargs = 7")).isEqualTo("1");
            client.getLock("after-upgrade").lock();
            client.getLock("after-upgrade").unlock();
        }
    }

    @Test
    void aTableOfAnotherShapeFailsTheBuildNamingTheColumns() {
        postgres.server().sql("CREATE SCHEMA odd; CREATE TABLE odd.dlock_hold (name text, owner text, expires bigint)");
        assertThatThrownBy(() -> LockClient.builder().postgres(postgres.server().jdbcUrl()).postgresSchema("odd").build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("dlock_hold has the wrong shape")
                .hasMessageContaining("no column lease_end (timestamp with time zone)");
    }

    @Test
    void theSqlFileCreatesTheSchemaThatAClientWithCreationOffThenUses() throws Exception {
        String sql;
        try (var in = LockClient.class.getClassLoader().getResourceAsStream("dev/dlock/postgres/V1__dlock.sql")) {
            sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        postgres.server().sql("CREATE SCHEMA migrated; SET search_path TO migrated; " + sql);
        try (LockClient client = LockClient.builder().postgres(postgres.server().jdbcUrl())
                .postgresSchema("migrated").postgresCreateSchema(false).build()) {
            assertThat(client.getLock("x").tryLock()).isTrue();
            client.getLock("x").unlock();
        }
    }
}
