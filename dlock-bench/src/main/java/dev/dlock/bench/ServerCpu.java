package dev.dlock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU time the redis-server processes of a scenario have used, from {@code INFO cpu}
 * ({@code used_cpu_user + used_cpu_sys}: the whole process, its event loop, I/O and background
 * work alike, to the microsecond). The difference over a run, divided by the acquire+release pairs
 * done in it, is what each pair costs the servers.
 */
public final class ServerCpu implements AutoCloseable {

    private final List<RedisClient> clients = new ArrayList<>();
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

    public ServerCpu(List<String> uris) {
        for (String uri : uris) {
            RedisClient client = RedisClient.create(uri);
            clients.add(client);
            connections.add(client.connect());
        }
    }

    /** The CPU time used so far, summed over every server, in microseconds. */
    public double micros() {
        double seconds = 0;
        for (StatefulRedisConnection<String, String> connection : connections) {
            seconds += usedSeconds(connection.sync().info("cpu"));
        }
        return seconds * 1e6;
    }

    /** {@code used_cpu_user + used_cpu_sys} of one server's {@code INFO cpu} answer, in seconds. */
    static double usedSeconds(String info) {
        double seconds = 0;
        int found = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                found++;
            }
        }
        if (found != 2) {
            throw new IllegalStateException("INFO cpu without used_cpu_user and used_cpu_sys:\n" + info);
        }
        return seconds;
    }

    @Override
    public void close() {
        connections.forEach(StatefulRedisConnection::close);
        clients.forEach(client -> client.shutdown(Duration.ZERO, Duration.ofSeconds(1)));
    }
}
