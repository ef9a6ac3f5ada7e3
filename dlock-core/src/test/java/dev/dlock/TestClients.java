package dev.dlock;

import dev.dlock.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Clients for one test, all closed together. */
final class TestClients implements AutoCloseable {
    private static final Pattern SCRIPT_CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");
    private static final Pattern PUBLISHES = Pattern.compile("cmdstat_publish:calls=(\\d+)");

    private final List<AutoCloseable> open = new ArrayList<>();

    LockClient client(RedisServer server) {
        return client(server, LockClient.DEFAULT_LEASE);
    }

    LockClient client(RedisServer server, Duration watchdogLease) {
        return track(LockClient.builder()
                .redisUri(server.uri())
                .defaultLease(watchdogLease)
                .commandTimeout(Duration.ofMillis(Math.min(2000, watchdogLease.toMillis() / 4)))
                .build());
    }

    LockClient.Builder builder(RedisServer server) {
        return LockClient.builder().redisUri(server.uri());
    }

    <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    /** A plain Redis connection for the shared counter of the exclusion checks. */
    Counter counter(RedisServer server, String key) {
        RedisClient redis = RedisClient.create(server.uri());
        StatefulRedisConnection<String, String> connection = redis.connect();
        track(redis::shutdown);
        track(connection);
        return new Counter(connection, key);
    }

    /**
     * @return how many EVAL and EVALSHA calls the server has run since it started (INFO
     *     commandstats): every dlock operation is one script call, so tests can count attempts and
     *     check that a refusal made none
     */
    static long scriptCalls(RedisServer server) {
        return commandCalls(server, SCRIPT_CALLS);
    }

    /** How many PUBLISH calls the server has run, scripts' included: each is a release that woke waiters. */
    static long publishes(RedisServer server) {
        return commandCalls(server, PUBLISHES);
    }

    private static long commandCalls(RedisServer server, Pattern commandStat) {
        Matcher matcher = commandStat.matcher((String) server.command("INFO", "commandstats"));
        long calls = 0;
        while (matcher.find()) {
            calls += Long.parseLong(matcher.group(1));
        }
        return calls;
    }

    @Override
    public void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /**
     * A counter kept in Redis and incremented the unsafe way (GET, pause, SET), so that without
     * mutual exclusion concurrent increments get lost.
     */
    static final class Counter {
        private final StatefulRedisConnection<String, String> connection;
        private final String key;

        Counter(StatefulRedisConnection<String, String> connection, String key) {
            this.connection = connection;
            this.key = key;
        }

        void incrementUnsafely() {
            String value = connection.sync().get(key);
            long next = (value == null ? 0 : Long.parseLong(value)) + 1;
            LockSupport.parkNanos(200_000);
            connection.sync().set(key, Long.toString(next));
        }

        long value() {
            String value = connection.sync().get(key);
            return value == null ? 0 : Long.parseLong(value);
        }
    }
}
