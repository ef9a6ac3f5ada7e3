package dev.dlock.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The output of the redis-server processes launched in one directory: {@code redis.log} (the
 * server's log file) and {@code redis.out} (stdout and stderr, where config errors go before the
 * log file is opened). Successive launches in the same directory append to both.
 */
final class RedisLog {

    private static final int TAIL_LINES = 40;

    private final Path dir;

    RedisLog(Path dir) {
        this.dir = dir;
    }

    Path file() {
        return dir.resolve("redis.log");
    }

    Path output() {
        return dir.resolve("redis.out");
    }

    /** @return the log's length now, so that a launch can later read only what it wrote */
    long size() {
        try {
            Path log = file();
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** @return what was logged after {@code offset} (at most 1 MiB), or "" if the log cannot be read */
    String since(long offset) {
        try (RandomAccessFile log = new RandomAccessFile(file().toFile(), "r")) {
            long length = log.length();
            byte[] bytes = new byte[(int) Math.max(0, Math.min(1 << 20, length - offset))];
            log.seek(Math.min(offset, length));
            log.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** @return an exception with {@code message} followed by the tails of the log and of the output */
    IllegalStateException failure(String message) {
        return new IllegalStateException(message
                + "\n--- redis.log (tail) ---\n" + ProcessReaper.tail(file(), TAIL_LINES)
                + "\n--- stdout/stderr (tail) ---\n" + ProcessReaper.tail(output(), TAIL_LINES));
    }
}
