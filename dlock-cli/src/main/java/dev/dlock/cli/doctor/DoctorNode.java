package dev.dlock.cli.doctor;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One plain connection to one Redis server for {@code dlock doctor}: INFO, CONFIG GET, TIME, PING,
 * WAIT and SCAN as the server answers them, refusals included.
 */
final class DoctorNode implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String label;

    private DoctorNode(RedisClient client, StatefulRedisConnection<String, String> connection, String label) {
        this.client = client;
        this.connection = connection;
        this.label = label;
    }

    /** @throws RuntimeException the server cannot be reached or refuses the credentials */
    static DoctorNode connect(RedisURI uri, String label) {
        uri.setTimeout(TIMEOUT);
        RedisClient client = RedisClient.create(uri);
        try {
            return new DoctorNode(client, client.connect(), label);
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ZERO);
            throw e;
        }
    }

    /** {@code redis://host:port}, never with the password. */
    static String label(RedisURI uri) {
        return (uri.isSsl() ? "rediss" : "redis") + "://" + uri.getHost() + ":" + uri.getPort();
    }

    String label() {
        return label;
    }

    RedisCommands<String, String> sync() {
        return connection.sync();
    }

    /** INFO of one section as field to value. */
    Map<String, String> info(String section) {
        Map<String, String> fields = new HashMap<>();
        for (String line : sync().info(section).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** CONFIG GET of the parameters, or null when the server refuses CONFIG (managed Redis, ACL). */
    Map<String, String> configOrNull(String... parameters) {
        try {
            return sync().configGet(parameters);
        } catch (RedisCommandExecutionException refused) {
            return null;
        }
    }

    /** The server's clock (TIME) in microseconds. */
    long timeMicros() {
        List<String> time = sync().time();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    /** Round trips of {@code count} PINGs, in nanoseconds, sorted. */
    long[] pingNanos(int count) {
        long[] rtts = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            sync().ping();
            rtts[i] = System.nanoTime() - start;
        }
        java.util.Arrays.sort(rtts);
        return rtts;
    }

    /** Every key matching {@code pattern} (SCAN, 1000 a page). */
    List<String> scan(String pattern) {
        List<String> keys = new ArrayList<>();
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
        KeyScanCursor<String> page = sync().scan(ScanCursor.INITIAL, args);
        keys.addAll(page.getKeys());
        while (!page.isFinished()) {
            page = sync().scan(page, args);
            keys.addAll(page.getKeys());
        }
        return keys;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }
}
