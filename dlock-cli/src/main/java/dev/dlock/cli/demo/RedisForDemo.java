package dev.dlock.cli.demo;

import dev.dlock.LockClientBuilder;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.UsageException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * The demo's Redis: {@code --redis} or {@code REDIS_URL} when given, else
 * localhost:6379 when a Redis answers there, else a redis-server of its own that is stopped on
 * exit. {@link #announcement()} says which, for the first line of the demo's output.
 */
final class RedisForDemo implements DemoStore {

    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(300);

    private final String url;
    private final String announcement;
    private final EmbeddedRedis own;
    /** The app servers' connections for the stock and orders; created with the first. */
    private RedisClient shopClient;

    private RedisForDemo(String url, String announcement, EmbeddedRedis own) {
        this.url = url;
        this.announcement = announcement;
        this.own = own;
    }

    static RedisForDemo locate(DlockCommand dlock) {
        DlockCommand.RedisSource explicit = dlock.explicitRedis();
        if (explicit != null) {
            return new RedisForDemo(explicit.url(), "redis: using " + explicit.origin() + " " + withoutPassword(explicit.url()),
                    null);
        }
        if (RedisProbe.answersPing("127.0.0.1", 6379, PROBE_TIMEOUT)) {
            return new RedisForDemo("redis://127.0.0.1:6379", "redis: using localhost:6379", null);
        }
        EmbeddedRedis own = EmbeddedRedis.start();
        return new RedisForDemo(own.url(), "redis: started " + own.description() + " (stopped on exit)", own);
    }

    String url() {
        return url;
    }

    @Override
    public String announcement() {
        return announcement;
    }

    @Override
    public LockClientBuilder lockClient(DlockCommand dlock) {
        return dlock.clientBuilder(url);
    }

    @Override
    public synchronized Stockroom openStockroom() {
        if (shopClient == null) {
            shopClient = RedisClient.create(url);
        }
        return new RedisStockroom(shopClient);
    }

    @Override
    public RuntimeException connectFailure(RuntimeException failure) {
        return failure instanceof RedisException
                ? new UsageException("cannot connect to Redis at " + withoutPassword(url) + ": " + failure.getMessage(), failure)
                : failure;
    }

    @Override
    public void close() {
        try {
            if (shopClient != null) {
                shopClient.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        } finally {
            if (own != null) {
                own.close();
            }
        }
    }

    /** The URL as Lettuce shows it: {@code redis://user:secret@host} becomes {@code redis://user:******@host}. */
    static String withoutPassword(String url) {
        try {
            return RedisURI.create(url).toString();
        } catch (RuntimeException e) {
            return "(a URL Lettuce cannot read)";
        }
    }
}
