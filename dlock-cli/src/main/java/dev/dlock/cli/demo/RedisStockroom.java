package dev.dlock.cli.demo;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;

/**
 * The stock and orders as plain Redis keys, {@code dlock-demo:<sale>:stock} (a number) and
 * {@code :orders} (a list of buyers), on one connection of the app server's own (Lettuce
 * pipelines every thread's commands on it).
 */
final class RedisStockroom implements Stockroom {

    static final String KEY_PREFIX = "dlock-demo:";

    /** Left-over keys of an interrupted demo vanish by themselves after this. */
    static final Duration KEY_TTL = Duration.ofMinutes(10);

    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    RedisStockroom(RedisClient client) {
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    static String stockKey(String sale) {
        return KEY_PREFIX + sale + ":stock";
    }

    static String ordersKey(String sale) {
        return KEY_PREFIX + sale + ":orders";
    }

    @Override
    public void stockUp(String sale, int units) {
        redis.del(ordersKey(sale));
        redis.set(stockKey(sale), Integer.toString(units), SetArgs.Builder.ex(KEY_TTL));
    }

    @Override
    public int stock(String sale) {
        String value = redis.get(stockKey(sale));
        return value == null ? 0 : Integer.parseInt(value);
    }

    @Override
    public void writeStock(String sale, int units) {
        redis.set(stockKey(sale), Integer.toString(units), SetArgs.Builder.keepttl());
    }

    @Override
    public void recordOrder(String sale, String buyer) {
        redis.rpush(ordersKey(sale), buyer);
        redis.expire(ordersKey(sale), KEY_TTL);
    }

    @Override
    public long orders(String sale) {
        return redis.llen(ordersKey(sale));
    }

    @Override
    public String keep(String sale) {
        redis.expire(ordersKey(sale), KEY_TTL);
        return "kept " + stockKey(sale) + " and " + ordersKey(sale) + " (expire in 10 minutes)";
    }

    @Override
    public void delete(String sale) {
        redis.del(stockKey(sale), ordersKey(sale));
    }

    @Override
    public void close() {
        connection.close();
    }
}
