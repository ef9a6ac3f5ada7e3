package dev.dlock.cli.demo;

import dev.dlock.LockClientBuilder;
import dev.dlock.cli.DlockCommand;

/** Where the demo runs: a Redis ({@link RedisForDemo}) or a PostgreSQL ({@link PostgresForDemo}). */
interface DemoStore extends AutoCloseable {

    /** Which store and where, for the first line of the demo's output. */
    String announcement();

    /** A builder for one app server's lock client, with the global options applied. */
    LockClientBuilder lockClient(DlockCommand dlock);

    /** One app server's own way to the stock and orders. */
    Stockroom openStockroom();

    /**
     * The failure to report when the app servers' lock clients cannot be built: {@code failure}
     * itself, or what it means here.
     */
    RuntimeException connectFailure(RuntimeException failure);

    @Override
    void close();
}
