package dev.dlock.cli.demo;

import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * One item's stock and orders, kept in Redis as plain keys, and bought the way many apps do it:
 * read the stock, check it, think a moment, write it back, record the order. Nothing here is
 * atomic; only the lock makes it correct.
 */
final class Shop {

    /** Left-over keys of an interrupted demo vanish by themselves after this. */
    static final Duration KEY_TTL = Duration.ofMinutes(10);

    private final String stockKey;
    private final String ordersKey;
    private final Duration pause;

    /** @param keyPrefix e.g. {@code dlock-demo:4f2a:lock:} */
    Shop(String keyPrefix, Duration pause) {
        this.stockKey = keyPrefix + "stock";
        this.ordersKey = keyPrefix + "orders";
        this.pause = pause;
    }

    String stockKey() {
        return stockKey;
    }

    String ordersKey() {
        return ordersKey;
    }

    /** Puts {@code units} on the shelf and clears the orders. */
    void stockUp(RedisCommands<String, String> redis, int units) {
        redis.del(ordersKey);
        redis.set(stockKey, Integer.toString(units), SetArgs.Builder.ex(KEY_TTL));
    }

    /**
     * One purchase attempt. Two buyers who read the same stock both sell a unit and both write the
     * same new stock back: the race the lock is there to prevent.
     *
     * @return whether the buyer got a unit
     */
    boolean buy(RedisCommands<String, String> redis, String buyer) {
        String value = redis.get(stockKey);
        int left = value == null ? 0 : Integer.parseInt(value);
        if (left <= 0) {
            return false;
        }
        if (!pause.isZero()) {
            LockSupport.parkNanos(pause.toNanos());
        }
        redis.set(stockKey, Integer.toString(left - 1), SetArgs.Builder.keepttl());
        redis.rpush(ordersKey, buyer);
        redis.expire(ordersKey, KEY_TTL);
        return true;
    }

    /** Orders recorded in Redis: the truth about what was sold. */
    long orders(RedisCommands<String, String> redis) {
        return redis.llen(ordersKey);
    }

    void delete(RedisCommands<String, String> redis) {
        redis.del(stockKey, ordersKey);
    }
}
