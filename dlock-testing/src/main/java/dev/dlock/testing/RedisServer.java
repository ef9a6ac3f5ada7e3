package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
 * <p>Requires {@code redis-server} on the {@code PATH} and a Unix-like OS ({@code kill -STOP}).
 * Thread-safe.
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration RESTART_BIND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration COMMAND_READ_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(10);
    private static final int START_PORT_ATTEMPTS = 5;
    private static final int LOG_TAIL_LINES = 40;

    private final int port;
    private final Path dir;
    private final List<String> extraArgs;

    private Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    private RedisServer(int port, Path dir, List<String> extraArgs, Process process) {
        this.port = port;
        this.dir = dir;
        this.extraArgs = extraArgs;
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
     * @throws IllegalStateException if the server does not answer within about 10 s or exits early;
     *     the message contains the tail of its log
     * @throws UncheckedIOException if {@code redis-server} cannot be executed
     */
    public static RedisServer start(String... extraArgs) {
        List<String> args = List.copyOf(List.of(extraArgs));
        Path dir = createTempDir();
        try {
            IllegalStateException lastBindFailure = null;
            for (int attempt = 0; attempt < START_PORT_ATTEMPTS; attempt++) {
                int port = freePort();
                long logOffset = logSize(dir);
                Process process = launch(port, dir, args);
                Launch result = awaitReady(process, port, dir, logOffset, START_TIMEOUT);
                if (result == Launch.READY) {
                    RedisServer server = new RedisServer(port, dir, args, process);
                    ProcessReaper.registerDirectory(dir);
                    return server;
                }
                stopQuietly(process);
                if (result == Launch.PORT_TAKEN) {
                    lastBindFailure = failure("port " + port + " was taken before redis-server could bind it", dir);
                    continue;
                }
                throw failure(result == Launch.TIMED_OUT
                        ? "redis-server on port " + port + " did not answer PING within " + START_TIMEOUT.toSeconds() + " s"
                        : "redis-server on port " + port + " exited with code " + process.exitValue(), dir);
            }
            throw lastBindFailure;
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
        stopQuietly(process);
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
        signal("-STOP");
        paused = true;
        awaitProcState(true);
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
        signal("-CONT");
        paused = false;
        awaitProcState(false);
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
        long deadline = System.nanoTime() + RESTART_BIND_TIMEOUT.toNanos();
        while (true) {
            long logOffset = logSize(dir);
            Process next = launch(port, dir, extraArgs);
            Launch result = awaitReady(next, port, dir, logOffset, START_TIMEOUT);
            if (result == Launch.READY) {
                process = next;
                return;
            }
            stopQuietly(next);
            if (result != Launch.PORT_TAKEN || System.nanoTime() - deadline >= 0) {
                throw failure("could not restart redis-server on port " + port + " (" + result + ")", dir);
            }
            backoff(Duration.ofMillis(100));
        }
    }

    /**
     * Sends one command over a fresh connection (1 s connect timeout, 5 s read timeout) and returns
     * the parsed RESP2 reply.
     *
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
     */
    public Object command(Duration readTimeout, String... args) {
        return Resp.call(HOST, port, Resp.CONNECT_TIMEOUT, readTimeout, args);
    }

    /** @return the keys matching a glob {@code pattern} ({@code KEYS}), sorted; fine for test data sizes */
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
        return dir.resolve("redis.log");
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
        ProcessReaper.deleteRecursively(dir);
        ProcessReaper.unregisterDirectory(dir);
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + (closed ? ", closed" : isPaused() ? ", paused" : isRunning() ? "" : ", killed") + "]";
    }

    // ---------------------------------------------------------------------------------------------

    private enum Launch { READY, PORT_TAKEN, EXITED, TIMED_OUT }

    private static Process launch(int port, Path dir, List<String> extraArgs) {
        List<String> cmd = new ArrayList<>(List.of(
                "redis-server",
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--dir", dir.toString(),
                "--logfile", dir.resolve("redis.log").toString()));
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                // Config errors are printed before the log file is opened; keep them for failure messages.
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.out").toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process process = pb.start();
            ProcessReaper.register(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run redis-server (is it on the PATH?): " + e.getMessage(), e);
        }
    }

    /**
     * Polls until the freshly launched process answers PING. Checks the process id reported by the
     * server, because when our process failed to bind, another Redis that owns the port would answer.
     */
    private static Launch awaitReady(Process process, int port, Path dir, long logOffset, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String expectedPid = "process_id:" + process.pid();
        while (true) {
            if (!process.isAlive()) {
                // Only this launch's part of the log: earlier attempts in the same dir may have hit a taken port.
                return logSince(dir, logOffset).contains("Address already in use") ? Launch.PORT_TAKEN : Launch.EXITED;
            }
            try {
                Object info = Resp.call(HOST, port, PROBE_TIMEOUT, PROBE_TIMEOUT, "INFO", "server");
                if (info instanceof String && ((String) info).contains(expectedPid + "\r\n")) {
                    return Launch.READY;
                }
                // Someone else answered on this port; our process will fail to bind and exit.
            } catch (UncheckedIOException | RedisReplyException notYet) {
                // not listening yet (or a LOADING error): keep polling
            }
            if (System.nanoTime() - deadline >= 0) {
                return Launch.TIMED_OUT;
            }
            waitOrExit(process, POLL_INTERVAL);
        }
    }

    /** Waits up to {@code max} but returns as soon as the process exits. */
    private static void waitOrExit(Process process, Duration max) {
        try {
            process.onExit().get(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException expected) {
            // the usual case: the process is still running
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    private static void backoff(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying", e);
        }
    }

    private static long logSize(Path dir) {
        try {
            Path log = dir.resolve("redis.log");
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private static String logSince(Path dir, long offset) {
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(dir.resolve("redis.log").toFile(), "r")) {
            long length = file.length();
            byte[] bytes = new byte[(int) Math.max(0, Math.min(1 << 20, length - offset))];
            file.seek(Math.min(offset, length));
            file.readFully(bytes);
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static void stopQuietly(Process process) {
        ProcessReaper.killAndWait(process);
    }

    private void requireRunning(String action) {
        if (!isRunning()) {
            throw new IllegalStateException("cannot " + action + " " + this + ": not running");
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " timed out");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + signal, e);
        }
    }

    /**
     * Waits until /proc reports the process stopped (state T) or not. kill(1) returns once the signal
     * is queued, not when it has taken effect; without /proc (non-Linux) this returns immediately.
     */
    private void awaitProcState(boolean stopped) {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (process.isAlive() && Files.exists(stat)) {
            String state = procState(stat);
            if (state == null || state.equals("T") == stopped) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("process " + process.pid() + " did not become "
                        + (stopped ? "stopped" : "running") + ", state " + state);
            }
            waitOrExit(process, Duration.ofMillis(1));
        }
    }

    private static String procState(Path stat) {
        try {
            String s = Files.readString(stat);
            // Format: "pid (comm) S ..."; comm may contain spaces and parentheses, so split at the last ')'.
            int close = s.lastIndexOf(')');
            return close < 0 || close + 2 >= s.length() ? null : s.substring(close + 2, close + 3);
        } catch (IOException e) {
            return null;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("dlock-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temp dir for redis-server", e);
        }
    }

    private static IllegalStateException failure(String message, Path dir) {
        return new IllegalStateException(message
                + "\n--- redis.log (tail) ---\n" + ProcessReaper.tail(dir.resolve("redis.log"), LOG_TAIL_LINES)
                + "\n--- stdout/stderr (tail) ---\n" + ProcessReaper.tail(dir.resolve("redis.out"), LOG_TAIL_LINES));
    }

    private static void deleteQuietly(Path dir, Throwable primary) {
        try {
            ProcessReaper.deleteRecursively(dir);
        } catch (RuntimeException e) {
            primary.addSuppressed(e);
        }
    }
}
