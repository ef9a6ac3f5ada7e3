package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A real {@code redis-server} child process listening on a private loopback port.
 *
 * <p>The server keeps nothing on disk ({@code --save ""}, {@code --appendonly no}), so a
 * {@link #kill()} followed by {@link #restart()} behaves like a crashed master that came back empty:
 * all keys and the script cache are gone. The working directory and log live in a temp directory
 * that {@link #close()} deletes.
 *
 * <p>All methods that change the process state wait until the change is observable, so tests never
 * need sleeps: after {@link #kill()} the port refuses connections, after {@link #pause()} the process
 * is stopped, after {@link #restart()} the server answers {@code PING}.
 *
 * <p>Requires {@code redis-server} (or, with {@link ServerKind#VALKEY} chosen, {@code valkey-server})
 * on the {@code PATH} and a Unix-like OS ({@code kill -STOP}).
 * Thread-safe.
 */
public final class RedisServer implements AutoCloseable {

    /** The only address the servers bind. */
    static final String HOST = "127.0.0.1";
    private static final Duration COMMAND_READ_TIMEOUT = Duration.ofSeconds(5);

    private final RedisLaunch launch;
    private final int port;

    private Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    private RedisServer(RedisLaunch launch, int port, Process process) {
        this.launch = launch;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts a server on a free loopback port and blocks until it answers {@code PING}.
     *
     * <p>Command line: {@code redis-server --port P --bind 127.0.0.1 --save "" --appendonly no
     * --daemonize no --dir <temp> --logfile <temp>/redis.log} followed by {@code extraArgs}, so later
     * arguments such as {@code "--maxmemory", "10mb"} override the defaults. The free port is found by
     * binding port 0 and releasing it; if another process grabs it before redis binds, a new port is
     * tried (up to 5 ports).
     *
     * @param extraArgs extra {@code redis-server} arguments, one token per element
     * @return the running server
     * @throws IllegalStateException if the server does not answer within about 10 s or exits early;
     *     the message contains the tail of its log
     * @throws UncheckedIOException if {@code redis-server} cannot be executed
     */
    public static RedisServer start(String... extraArgs) {
        return start(ServerKind.current().serverBinary(), null, extraArgs);
    }

    /**
     * Like {@link #start(String...)}, with another {@code redis-server} binary than the one on the
     * {@code PATH}.
     *
     * @param executable the {@code redis-server} binary to run
     * @param extraArgs  extra {@code redis-server} arguments, one token per element
     * @return the running server
     * @throws IllegalStateException if the server does not answer within about 10 s or exits early
     * @throws UncheckedIOException if {@code executable} cannot be executed
     */
    public static RedisServer start(Path executable, String... extraArgs) {
        return start(executable.toString(), null, extraArgs);
    }

    /**
     * Like {@link #start(String...)} but with a config file as the first argument, which Sentinel
     * mode requires (it rewrites the file with what it learns). The file is not deleted on close.
     */
    static RedisServer startWithConfig(Path configFile, String... extraArgs) {
        return start(ServerKind.current().serverBinary(), configFile, extraArgs);
    }

    private static RedisServer start(String executable, Path configFile, String... extraArgs) {
        List<String> args = List.copyOf(List.of(extraArgs));
        Path dir = createTempDir();
        try {
            RedisLaunch launch = new RedisLaunch(executable, configFile, args, dir);
            RedisLaunch.Started started = launch.onFreePort();
            RedisServer server = new RedisServer(launch, started.port(), started.process());
            ProcessReaper.registerDirectory(dir);
            return server;
        } catch (RuntimeException | Error e) {
            deleteQuietly(dir, e);
            throw e;
        }
    }

    /** @return always {@code "127.0.0.1"}: the server binds only the IPv4 loopback address */
    public String host() {
        return HOST;
    }

    /** @return the TCP port; it stays the same across {@link #restart()} */
    public int port() {
        return port;
    }

    /** @return {@code redis://127.0.0.1:<port>}, a URI Lettuce and most clients accept */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /** @return the OS process id of the current redis-server process; changes on {@link #restart()} */
    public synchronized long pid() {
        return process.pid();
    }

    /** @return whether the process is alive; a paused (SIGSTOP-ed) server counts as running */
    public synchronized boolean isRunning() {
        return !closed && process.isAlive();
    }

    /** @return whether the server was {@linkplain #pause() paused} and is still alive */
    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Kills the server with SIGKILL (no shutdown, no persistence) and waits until the process has
     * exited, so the port refuses connections when this returns. No-op if it is not running. Clears the
     * paused state.
     */
    public synchronized void kill() {
        // SIGKILL ends a stopped process too; no SIGCONT needed.
        ProcessReaper.killAndWait(process);
        ProcessReaper.unregister(process);
        paused = false;
    }

    /**
     * Suspends the server with SIGSTOP and waits until the kernel reports it stopped. The port still
     * accepts TCP connections (the kernel completes the handshake) but nothing is answered: clients see
     * read timeouts, like a server stuck in a long GC-like stall or a network partition.
     *
     * @throws IllegalStateException if the server is not running
     */
    public synchronized void pause() {
        requireRunning("pause");
        ProcessSignals.send(process, "-STOP");
        paused = true;
        ProcessSignals.awaitStopped(process, true);
    }

    /**
     * Resumes a {@linkplain #pause() paused} server with SIGCONT and waits until it is no longer
     * stopped. Requests that arrived while paused are then processed. No-op if not paused.
     */
    public synchronized void resume() {
        if (!isRunning()) {
            paused = false;
            return;
        }
        // Sent even when not flagged paused: someone may have stopped the process outside the harness.
        ProcessSignals.send(process, "-CONT");
        paused = false;
        ProcessSignals.awaitStopped(process, false);
    }

    /**
     * Simulates a crash and recovery: kills the process if running (resuming it first if paused),
     * starts a new {@code redis-server} on the <em>same</em> port with the same arguments, and blocks
     * until it answers {@code PING}. All data and the Lua script cache are lost. If the port is still
     * held (for example by a client's connection in a closing state or another process), binding is
     * retried for about 5 s.
     *
     * @throws IllegalStateException if the server is closed or cannot be started again
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("server on port " + port + " is closed");
        }
        if (paused) {
            resume();
        }
        kill();
        process = launch.restartOn(port);
    }

    /**
     * Sends one command over a fresh connection (1 s connect timeout, 5 s read timeout) and returns
     * the parsed RESP2 reply.
     *
     * @param args the command and its arguments, one token per element
     * @return a {@code String} for simple and bulk strings ({@code null} for a nil bulk string), a
     *     {@code Long} for integers, a {@code List<Object>} for arrays ({@code null} for a nil array);
     *     an error nested inside an array is returned as a {@link RedisReplyException} element
     * @throws RedisReplyException if the reply is a RESP error
     * @throws UncheckedIOException if the connection is refused, times out or breaks; the cause is the
     *     original {@code IOException} (e.g. {@code ConnectException}, {@code SocketTimeoutException})
     */
    public Object command(String... args) {
        return command(COMMAND_READ_TIMEOUT, args);
    }

    /**
     * Like {@link #command(String...)} but with the given read timeout, for example to observe that a
     * {@linkplain #pause() paused} server does not answer without waiting the default 5 s.
     *
     * @param readTimeout how long to wait for the reply after sending, at least 1 ms
     * @param args        the command and its arguments, one token per element
     * @return the parsed reply, as for {@link #command(String...)}
     */
    public Object command(Duration readTimeout, String... args) {
        return Resp.call(HOST, port, Resp.CONNECT_TIMEOUT, readTimeout, args);
    }

    /**
     * @param pattern a Redis glob
     * @return the keys matching {@code pattern} ({@code KEYS}), sorted; fine for test data sizes
     */
    @SuppressWarnings("unchecked")
    public List<String> keys(String pattern) {
        List<Object> reply = (List<Object>) command("KEYS", pattern);
        List<String> keys = new ArrayList<>(reply.size());
        for (Object key : reply) {
            keys.add((String) key);
        }
        Collections.sort(keys);
        return keys;
    }

    /** Deletes all keys in all databases ({@code FLUSHALL}, synchronous). */
    public void flushAll() {
        command("FLUSHALL");
    }

    /** @return the path of the server log ({@code redis.log} in the temp directory); gone after close */
    public Path logFile() {
        return launch.log().file();
    }

    /**
     * Kills the server (SIGKILL: it holds no data worth a clean shutdown) and deletes its temp
     * directory. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        kill();
        closed = true;
        ProcessReaper.deleteRecursively(launch.dir());
        ProcessReaper.unregisterDirectory(launch.dir());
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + (closed ? ", closed" : isPaused() ? ", paused" : isRunning() ? "" : ", killed") + "]";
    }

    // ---------------------------------------------------------------------------------------------

    private void requireRunning(String action) {
        if (!isRunning()) {
            throw new IllegalStateException("cannot " + action + " " + this + ": not running");
        }
    }

    /** @return a port free a moment ago on the loopback address, for a server's other listeners */
    static int freePort() {
        return FreePorts.next();
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("dlock-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temp dir for redis-server", e);
        }
    }

    private static void deleteQuietly(Path dir, Throwable primary) {
        try {
            ProcessReaper.deleteRecursively(dir);
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }
}
