package dev.dlock.cli.store;

import dev.dlock.LockClient;
import dev.dlock.LockClientBuilder;
import java.util.List;

/**
 * The store the global options pick ({@link Stores#pick()}), for the commands to ask what it is: one
 * Redis (a Sentinel URL is one Redis too), a Redlock, a Redis Cluster, PostgreSQL or ZooKeeper, its
 * URLs as given (checked as the library checks them) and where it came from.
 */
public final class ClientOptions {

    private final StoreOptions store;
    private final String option;
    private final List<String> urls;
    private final String origin;

    /**
     * @param option the option that names this kind of store, also when a variable or the default
     *               named it: {@code --redis}, {@code --redlock}, {@code --cluster}, {@code --postgres} ...
     * @param origin the option or variable that named it, or null for the default
     */
    ClientOptions(StoreOptions store, String option, List<String> urls, String origin) {
        this.store = store;
        this.option = option;
        this.urls = List.copyOf(urls);
        this.origin = origin;
    }

    StoreOptions store() {
        return store;
    }

    /** The option that names this kind of store: {@code --redis}, {@code --redlock}, {@code --cluster}, ... */
    public String option() {
        return option;
    }

    /** The option or environment variable that named the store ({@code --postgres}, {@code DLOCK_POSTGRES_URL}, ...); null for the default. */
    public String origin() {
        return origin;
    }

    /** True when the locks live in PostgreSQL. */
    public boolean isPostgres() {
        return store instanceof PostgresOptions;
    }

    /** The PostgreSQL URL; only when {@link #isPostgres()}. */
    public String postgresUrl() {
        if (!isPostgres()) {
            throw new IllegalStateException("not PostgreSQL: " + option);
        }
        return urls.get(0);
    }

    /**
     * The schema of dlock's tables on PostgreSQL as the options name it ({@code --postgres-schema}, else
     * {@code $DLOCK_POSTGRES_SCHEMA}); null when neither does (the library's default, public). Only when
     * {@link #isPostgres()}.
     */
    public String postgresSchema() {
        if (!(store instanceof PostgresOptions postgres)) {
            throw new IllegalStateException("not PostgreSQL: " + option);
        }
        return postgres.schema();
    }

    /** True when the locks live in a ZooKeeper ensemble. */
    public boolean isZooKeeper() {
        return store instanceof ZooKeeperOptions;
    }

    /** What the locks live on, for messages: "Redis", "PostgreSQL" or "ZooKeeper". */
    public String storeName() {
        return store.storeName();
    }

    /** True for one Redis (standalone or Sentinel), false for a Redlock or a Cluster. */
    public boolean isSingleRedis() {
        return option.equals("--redis");
    }

    public boolean isCluster() {
        return option.equals("--cluster");
    }

    /** The URLs as given (one for one Redis), for {@code dlock doctor}. */
    public List<String> urls() {
        return urls;
    }

    /** The one Redis's URL. */
    public String redisUrl() {
        if (!isSingleRedis()) {
            throw new IllegalStateException("not one Redis: " + option);
        }
        return urls.get(0);
    }

    /**
     * A builder connected to the store's servers, with the store's settings (as for a command that
     * waits for locks and writes them) and nothing else set.
     *
     * @throws dev.dlock.cli.common.UsageException the library refuses the URLs or settings
     */
    public LockClientBuilder builder() {
        return builder(true);
    }

    /** As {@link #builder()}; {@code waitsOrWrites} false for a command that never waits for a lock nor writes one. */
    LockClientBuilder builder(boolean waitsOrWrites) {
        return LockClient.builder().store(store.store(this, waitsOrWrites));
    }
}
