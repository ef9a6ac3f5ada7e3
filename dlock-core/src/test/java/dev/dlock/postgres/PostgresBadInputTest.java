package dev.dlock.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.DistributedLock;
import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.NodeError;
import dev.dlock.PostgresStore;
import dev.dlock.testing.PostgresServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One clear error at build() for each thing that can be wrong with the database given. */
class PostgresBadInputTest {

    @RegisterExtension
    static final PostgresServers postgres = PostgresServers.create();

    @Test
    void aUrlThatIsNotPostgresIsRefusedNamingIt() {
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url("jdbc:mysql://db:3306/app?user=u&password=secret")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a PostgreSQL URL: 'mysql://db:3306/app'")
                .hasMessageNotContaining("secret");
    }

    @Test
    void aServerThatIsNotThereFailsTheBuildNamingIt() {
        String url = "jdbc:postgresql://127.0.0.1:1/dlock?user=dlock&password=x&connectTimeout=2";
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(url)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("postgresql://127.0.0.1:1/dlock")
                .hasMessageContaining("refused");
    }

    @Test
    void aWrongPasswordFailsTheBuildSayingSo() {
        String url = postgres.server().jdbcUrl().replace("password=" + postgres.server().password(), "password=wrong");
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(url)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("password authentication failed for user \"dlock\"")
                .hasMessageNotContaining("wrong");
    }

    @Test
    void libpqUrlsWithAPercentEncodedPasswordConnect() {
        LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())).build().close(); // the schema, made by its owner
        postgres.server().sql("DROP ROLE IF EXISTS \"app user\"; CREATE ROLE \"app user\" LOGIN PASSWORD 'p@ss:w/rd%'; "
                + "GRANT ALL ON SCHEMA public TO \"app user\"; GRANT ALL ON ALL TABLES IN SCHEMA public TO \"app user\"; "
                + "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO \"app user\"");
        for (String url : List.of("postgresql://app%20user:p%40ss%3Aw%2Frd%25@127.0.0.1:" + postgres.server().port() + "/dlock",
                "postgres://app%20user:p%40ss%3Aw%2Frd%25@127.0.0.1/dlock?port=" + postgres.server().port()
                        + "&application_name=libpq-form")) {
            try (LockClient client = LockClient.builder().store(PostgresStore.url(url)).build()) {
                assertThat(client.getLock("libpq-url").tryLock()).as(url).isTrue();
                client.getLock("libpq-url").unlock();
            }
        }
    }

    @Test
    void refusalsAreRefusedNotUnreachable() {
        String wrongPassword = postgres.server().jdbcUrl().replace("password=" + postgres.server().password(), "password=wrong");
        for (String url : List.of(wrongPassword, postgres.server().jdbcUrl("nosuchdb"))) {
            assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(url)).build())
                    .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.nodeErrors())
                            .extracting(NodeError::cause).containsExactly(NodeError.Cause.REFUSED));
        }
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())
                .schema("not_there").createSchema(false)).build())
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.nodeErrors())
                        .extracting(NodeError::cause).containsExactly(NodeError.Cause.REFUSED));
    }

    @Test
    void aPrivilegeTakenAwayFailsTheLockAtOnceInsteadOfWaitingOutTheTolerance() {
        postgres.server().sql("DROP ROLE IF EXISTS revoked; CREATE ROLE revoked LOGIN PASSWORD 'pw'; "
                + "CREATE SCHEMA IF NOT EXISTS revoked AUTHORIZATION dlock; GRANT USAGE, CREATE ON SCHEMA revoked TO revoked");
        String url = postgres.server().jdbcUrl().replace("user=dlock", "user=revoked")
                .replace("password=" + postgres.server().password(), "password=pw");
        try (LockClient client = LockClient.builder().store(PostgresStore.url(url).schema("revoked").polling(Duration.ofMillis(50)))
                .outageTolerance(Duration.ofSeconds(30)).build()) {
            postgres.server().sql("REVOKE USAGE ON SCHEMA revoked FROM revoked");
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.getLock("revoked").lock())
                    .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.nodeErrors())
                            .extracting(NodeError::cause).containsExactly(NodeError.Cause.REFUSED))
                    .hasMessageContaining("permission denied");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        }
    }

    @Test
    void aMissingSchemaWithCreationOffFailsTheBuildNamingTheSqlToRun() {
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())
                .schema("not_created").createSchema(false)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("schema \"not_created\"")
                .hasMessageContaining("dev/dlock/postgres/V1__dlock.sql");
        assertThat(postgres.server().sql("SELECT count(*) FROM pg_namespace WHERE nspname = 'not_created'")).isEqualTo("0");
    }

    @Test
    void functionsOfAnEarlierBuildOfTheSchemaAreReplacedAtBuild() {
        LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl()).schema("earlier")).build().close();
        // an earlier build's hand-off took one argument less
        postgres.server().sql("DROP FUNCTION earlier.dlock_hand_off(text, text, integer, text, bigint, text, boolean)");
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl()).schema("earlier")).build()) {
            assertThat(postgres.server().sql("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    + "WHERE n.nspname = 'earlier' AND p.proname = 'dlock_hand_off' AND p.pronargs = 7")).isEqualTo("1");
            client.getLock("after-upgrade").lock();
            client.getLock("after-upgrade").unlock();
        }
    }

    @Test
    void aTableOfAnotherShapeFailsTheBuildNamingTheColumns() {
        postgres.server().sql("CREATE SCHEMA odd; CREATE TABLE odd.dlock_hold (name text, owner text, expires bigint)");
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl()).schema("odd")).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("dlock_hold has the wrong shape")
                .hasMessageContaining("no column lease_end (timestamp with time zone)");
    }

    @Test
    void theSqlFilesCreateTheSchemaThatAClientWithCreationOffThenUses() {
        postgres.server().sql("CREATE SCHEMA migrated; SET search_path TO migrated; " + sqlFile("V1__dlock.sql"));
        // a migration tool at version 1, 2, 3: this dlock names the files it still needs, and those alone
        refusedNaming(1, "dev/dlock/postgres/V2__dlock.sql then dev/dlock/postgres/V3__dlock.sql "
                + "then dev/dlock/postgres/V4__dlock.sql");
        postgres.server().sql("SET search_path TO migrated; " + sqlFile("V2__dlock.sql"));
        refusedNaming(2, "dev/dlock/postgres/V3__dlock.sql then dev/dlock/postgres/V4__dlock.sql");
        postgres.server().sql("SET search_path TO migrated; " + sqlFile("V3__dlock.sql"));
        refusedNaming(3, "dev/dlock/postgres/V4__dlock.sql");
        postgres.server().sql("SET search_path TO migrated; " + sqlFile("V4__dlock.sql"));
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())
                .schema("migrated").createSchema(false)).build()) {
            assertThat(client.getLock("x").tryLock()).isTrue();
            client.getLock("x").unlock();
        }
    }

    private void refusedNaming(int version, String files) {
        assertThatThrownBy(() -> LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl())
                .schema("migrated").createSchema(false)).build())
                .isInstanceOf(LockBackendException.class)
                .hasMessageContaining("is of version " + version + ", this dlock needs version 4")
                .hasMessageContaining("run the SQL files " + files + " (in");
    }

    @Test
    void aSchemaOfVersionOneWithLocksHeldIsMigratedOnFirstUseAndKeepsThem() {
        migratedWithLocksHeld("v1db", 1);
    }

    @Test
    void aSchemaOfVersionTwoWithLocksHeldIsMigratedOnFirstUseAndKeepsThem() {
        migratedWithLocksHeld("v2db", 2);
    }

    @Test
    void aSchemaOfVersionThreeWithLocksHeldIsMigratedOnFirstUseAndKeepsThem() {
        migratedWithLocksHeld("v3db", 3);
    }

    /**
     * A schema made by the files up to {@code version}, with holds taken by that version's functions
     * (an exclusive hold, one whose lease ended and whose row is still there, a read hold and a
     * permit), brought to the current version by a client's first use: every live hold stays, the
     * ended one is gone, and the next grants' tokens are above the old ones.
     */
    private void migratedWithLocksHeld(String schema, int version) {
        StringBuilder files = new StringBuilder("CREATE SCHEMA " + schema + "; SET search_path TO " + schema + "; ");
        for (int v = 1; v <= version; v++) {
            files.append(sqlFile("V" + v + "__dlock.sql")).append(";\n");
        }
        postgres.server().sql(files.toString());
        String acquire = "SELECT token FROM " + schema + ".dlock_acquire('dlock:{%s}', '%s', '%s', %d, 'old holder', "
                + "false, '', 0, false, '', %d)";
        long oldToken = Long.parseLong(postgres.server().sql(String.format(acquire, "held-across", "x", "oldclient:1", 600000, 0)));
        postgres.server().sql(String.format(acquire, "ended-before", "x", "oldclient:2", 1, 0));
        postgres.server().sql(String.format(acquire, "read-across", "r", "oldclient:3", 600000, 0));
        postgres.server().sql(String.format(acquire, "permit-across", "p", "oldclient:4", 600000, 2));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> postgres.server().sql(
                "SELECT count(*) FROM " + schema + ".dlock_hold WHERE lease_end <= clock_timestamp()").equals("1"));
        String longName = java.util.stream.IntStream.range(0, LockClient.MAX_NAME_LENGTH).map(i -> 0x4E00 + i)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        try (LockClient client = LockClient.builder().store(PostgresStore.url(postgres.server().jdbcUrl()).schema(schema)).build()) {
            assertThat(postgres.server().sql("SELECT " + schema + ".dlock_schema_version()")).isEqualTo("4");
            assertThat(postgres.server().sql("SELECT count(*) FROM " + schema + ".dlock_hold WHERE name = 'dlock:{ended-before}'"))
                    .as("an ended exclusive row is no hold: the migration drops it").isEqualTo("0");
            DistributedLock held = client.getLock("held-across");
            assertThat(held.tryLock()).as("the hold made under version %s", version).isFalse();
            assertThat(held.info().isLocked()).isTrue();
            assertThat(held.info().fencingToken()).isEqualTo(oldToken);
            assertThat(client.getReadWriteLock("read-across").writeLock().tryLock()).as("the read hold kept").isFalse();
            assertThat(client.getReadWriteLock("read-across").readLock().tryLock()).isTrue();
            client.getReadWriteLock("read-across").readLock().unlock();
            dev.dlock.DistributedSemaphore permits = client.getSemaphore("permit-across", 2);
            java.util.Optional<dev.dlock.LockHandle> permit = permits.tryAcquire();
            assertThat(permit).as("one of two permits left").isPresent();
            assertThat(permits.tryAcquire()).as("the old permit kept").isEmpty();
            permit.get().release();
            DistributedLock ended = client.getLock("ended-before");
            assertThat(ended.tryLock()).isTrue();
            assertThat(ended.fencingToken()).isGreaterThan(oldToken);
            ended.unlock();
            DistributedLock longest = client.getLock(longName);
            assertThat(longest.tryLock()).isTrue();
            assertThat(client.listLocks("*")).extracting(dev.dlock.LockInfo::name).contains("held-across", longName);
            longest.unlock();
            assertThat(held.forceUnlock()).isTrue();
            assertThat(held.tryLock()).isTrue();
            assertThat(held.fencingToken()).isGreaterThan(oldToken);
            long first = held.fencingToken();
            held.unlock();
            assertThat(held.tryLock()).isTrue();
            assertThat(held.fencingToken()).as("a grant in place takes a fresh token, 16 on (version 4: the 15 between are "
                    + "the holding client's passes)").isGreaterThanOrEqualTo(first + 16);
            held.unlock();
            assertThat(postgres.server().sql("SELECT count(*) FROM " + schema + ".dlock_hold WHERE name = 'dlock:{held-across}'"))
                    .as("one row per exclusive name, kept free").isEqualTo("1");
        }
    }

    private static String sqlFile(String file) {
        try (var in = LockClient.class.getClassLoader().getResourceAsStream("dev/dlock/postgres/" + file)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
