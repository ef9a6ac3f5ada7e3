package dev.dlock.cli.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dlock.RedisStore;
import dev.dlock.cli.common.UsageException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * How {@link Stores} picks the one store of a command line, in this JVM (the process tests, e.g.
 * TopologyOptionsTest, run the command as a user does): one option at most, else the variables
 * (two set at once are an error, $DLOCK_ZOOKEEPER yields), else one Redis at the default address.
 */
class StoresTest {

    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/db";

    @Test
    void nothingNamesOneRedisAtTheDefaultAddress() {
        ClientOptions picked = pick(Map.of());
        assertThat(picked.isSingleRedis()).isTrue();
        assertThat(picked.redisUrl()).isEqualTo(RedisStore.DEFAULT_URI);
        assertThat(picked.origin()).isNull();
    }

    @Test
    void anOptionWinsOverEveryVariable() {
        ClientOptions picked = pick(Map.of(RedisOptions.URL_ENV, "not a url", ZooKeeperOptions.CONNECT_ENV, "h:1"),
                "--postgres", PG);
        assertThat(picked.isPostgres()).isTrue();
        assertThat(picked.origin()).isEqualTo("--postgres");
        assertThat(picked.storeName()).isEqualTo("PostgreSQL");
    }

    @Test
    void optionsOfTwoStoresExcludeEachOther() {
        assertThatThrownBy(() -> pick(Map.of(), "--redis", "redis://h:1", "--postgres", PG))
                .isInstanceOf(UsageException.class)
                .hasMessage("--redis and --postgres exclude each other: give one of --redis URL (one Redis, Sentinel "
                        + "included), --redlock URL,URL,URL, --cluster URL[,URL...] or --postgres URL");
        assertThatThrownBy(() -> pick(Map.of(), "--postgres", PG, "--zookeeper", "h:1"))
                .isInstanceOf(UsageException.class)
                .hasMessage("--zookeeper excludes --redis, --redlock, --cluster and --postgres: give one of them");
    }

    @Test
    void twoVariablesSetAskForAnOptionAndZooKeepersYields() {
        assertThatThrownBy(() -> pick(Map.of(RedisOptions.URL_ENV, "redis://h:1", PostgresOptions.URL_ENV, PG)))
                .isInstanceOf(UsageException.class)
                .hasMessage("REDIS_URL and DLOCK_POSTGRES_URL are both set: say which with --redis URL or --postgres URL");
        ClientOptions redis = pick(Map.of(RedisOptions.URL_ENV, "redis://h:1", ZooKeeperOptions.CONNECT_ENV, "h:2"));
        assertThat(redis.isSingleRedis()).isTrue();
        assertThat(redis.origin()).isEqualTo(RedisOptions.URL_ENV);
        ClientOptions zookeeper = pick(Map.of(ZooKeeperOptions.CONNECT_ENV, " h:2 "));
        assertThat(zookeeper.isZooKeeper()).isTrue();
        assertThat(zookeeper.urls()).containsExactly("h:2");
        assertThat(zookeeper.origin()).isEqualTo(ZooKeeperOptions.CONNECT_ENV);
    }

    @Test
    void aStoresSettingsGivenForAnotherAreBadInput() {
        Stores stores = parse("--redis", "redis://h:1", "--postgres-schema", "locks");
        assertThatThrownBy(() -> stores.builder(true))
                .isInstanceOf(UsageException.class)
                .hasMessage("--postgres-schema, --postgres-no-create-schema and --postgres-polling are for "
                        + "--postgres URL (or $DLOCK_POSTGRES_URL)");
    }

    @Test
    void theScanForTheSubcommandKnowsEveryStoreOptionThatTakesAValue() {
        assertThat(Stores.optionsWithValue()).containsExactlyInAnyOrder("--redis", "--redlock", "--cluster",
                "--postgres", "--postgres-schema", "--postgres-polling", "--zookeeper");
    }

    private static ClientOptions pick(Map<String, String> environment, String... args) {
        return parse(args).pick(environment::get);
    }

    private static Stores parse(String... args) {
        Stores stores = new Stores();
        new CommandLine(stores).parseArgs(args);
        return stores;
    }
}
