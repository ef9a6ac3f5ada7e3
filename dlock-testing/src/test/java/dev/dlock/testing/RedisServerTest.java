package dev.dlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class RedisServerTest {

    @RegisterExtension
    static final RedisServers masters = RedisServers.masters(3);

    @Test
    void startsAndAnswersPing() {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.isRunning()).isTrue();
            assertThat(server.isPaused()).isFalse();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat((String) server.command("INFO", "server")).contains("process_id:" + server.pid() + "\r\n");
        }
    }

    /**
     * A binary a test has just written may still be open for writing somewhere (a child another thread
     * forked while it was being written keeps the descriptor until its own exec): the kernel refuses
     * to run it (ETXTBSY), and the start waits for the writer to let go instead of failing.
     */
    @Test
    void aBinaryStillOpenForWritingStartsOnceTheWriterClosesIt(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("redis-server-copy");
        Files.copy(onPath(ServerKind.current().serverBinary()), copy);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwx------"));
        OutputStream writer = Files.newOutputStream(copy, StandardOpenOption.APPEND);
        CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
            try (writer) {
                // no event to wait for: the writer stays open long enough for the first starts to meet it
                Thread.sleep(300);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        try (RedisServer server = RedisServer.start(copy)) {
            assertThat(server.command("PING")).isEqualTo("PONG");
        } finally {
            closed.join();
        }
    }

    private static Path onPath(String program) {
        return Arrays.stream(System.getenv("PATH").split(":")).map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable).findFirst().orElseThrow();
    }

    @Test
    void parsesRepliesAndErrors() {
        RedisServer server = masters.server();
        assertThat(server.command("SET", "b", "2")).isEqualTo("OK");
        assertThat(server.command("SET", "a", "ü")).isEqualTo("OK");
        assertThat(server.command("GET", "a")).isEqualTo("ü");
        assertThat(server.command("GET", "missing")).isNull();
        assertThat(server.command("INCR", "n")).isEqualTo(1L);
        assertThat(server.command("MGET", "a", "missing")).isEqualTo(java.util.Arrays.asList("ü", null));
        assertThat(server.keys("*")).containsExactly("a", "b", "n");
        assertThatThrownBy(() -> server.command("NOSUCHCOMMAND"))
                .isInstanceOf(RedisReplyException.class)
                .hasMessageStartingWith("ERR unknown command");
        server.flushAll();
        assertThat(server.keys("*")).isEmpty();
    }

    @Test
    void killRefusesConnectionsAndRestartComesBackEmptyOnSamePort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            long pid = server.pid();
            server.command("SET", "k", "v");

            server.kill();

            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> server.command("PING"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(ConnectException.class);

            server.restart();

            assertThat(server.isRunning()).isTrue();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(pid);
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("GET", "k")).isNull();
        }
    }

    @Test
    void pausedServerTimesOutAndAnswersAfterResume() {
        try (RedisServer server = RedisServer.start()) {
            server.pause();

            assertThat(server.isPaused()).isTrue();
            assertThat(server.isRunning()).isTrue();
            assertThatThrownBy(() -> server.command(Duration.ofMillis(300), "PING"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);

            server.resume();

            assertThat(server.isPaused()).isFalse();
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void restartOfPausedServerWorks() {
        try (RedisServer server = RedisServer.start()) {
            server.pause();
            server.restart();
            assertThat(server.isPaused()).isFalse();
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void extraArgsArePassedThrough() {
        try (RedisServer server = RedisServer.start("--maxmemory", "10mb")) {
            assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
            server.restart();
            assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
        }
    }

    @Test
    void startFailureReportsLog() {
        assertThatThrownBy(() -> RedisServer.start("--no-such-option", "x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no-such-option");
    }

    @Test
    void closeIsIdempotentAndStopsTheProcess() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        server.close();
        server.close();
        assertThat(server.isRunning()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(server.logFile()).doesNotExist();
    }

    @Test
    void mastersAreThreeDistinctServers() {
        List<RedisServer> all = masters.all();
        assertThat(all).hasSize(3);
        assertThat(all.stream().map(RedisServer::port).collect(Collectors.toSet())).hasSize(3);
        assertThat(masters.uris()).hasSize(3).doesNotHaveDuplicates();
        for (RedisServer server : all) {
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
        assertThat(masters.server()).isSameAs(masters.get(0));
    }
}
