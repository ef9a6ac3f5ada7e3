package dev.dlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real PostgreSQL server of its own: {@code initdb} into a temp directory, then {@code postgres -D
 * dir -p PORT -k dir} listening on {@code 127.0.0.1} and on a Unix socket in that directory, never the
 * machine's PostgreSQL. When the tests run as root, the server runs as the {@code postgres} OS user.
 *
 * <p>The cluster has one superuser {@value #USER} with password {@link #password()} (scram-sha-256 over
 * TCP, trust over the private socket) and a database {@value #DATABASE}. Its data survives {@link
 * #kill()}, {@link #stopFast()} and {@link #startAgain()} (crash recovery replays the WAL; {@code
 * fsync} is off, which only matters if the machine itself crashes).
 *
 * <p>Every method that changes the process state waits until the change has happened: after {@link
 * #kill()} no process of the server is left, after {@link #pause()} every one of them is stopped, after
 * {@link #startAgain()} the server accepts connections. The server is addressed by its own process ids,
 * never by name. Thread-safe.
 */
public final class PostgresServer implements AutoCloseable {

    /** The superuser of every cluster the harness creates. */
    public static final String USER = "dlock";
    /** The database every cluster the harness creates has, besides {@code postgres}. */
    public static final String DATABASE = "dlock";
    private static final String PASSWORD = "dlock-test-secret";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final int START_PORT_ATTEMPTS = 5;

    private final Path dir;
    private final Path data;
    private final List<String> settings;
    private final int port;
    private Process postmaster;
    private volatile boolean paused;
    private volatile boolean closed;

    private PostgresServer(Path dir, List<String> settings, int port, Process postmaster) {
        this.dir = dir;
        this.data = dir.resolve("data");
        this.settings = settings;
        this.port = port;
        this.postmaster = postmaster;
    }

    /**
     * Creates a cluster in a temp directory and starts it on a free loopback port.
     *
     * @param settings extra server settings as {@code name=value}, each passed as {@code -c name=value}
     *     after the harness defaults, so they override them
     * @throws IllegalStateException if the binaries are missing or the server does not start within
     *     30 s; the message holds the tail of its log
     */
    public static PostgresServer start(String... settings) {
        Path dir = PostgresInstall.createTempDir("dlock-pg-");
        Path passwordFile = dir.resolve("password");
        PostgresInstall.write(passwordFile, PASSWORD + "\n");
        PostgresInstall.ownForServer(passwordFile);
        PostgresInstall.run(PostgresInstall.asServerUser(List.of(PostgresInstall.binary("initdb"),
                "-D", dir.resolve("data").toString(), "-U", USER, "--pwfile=" + passwordFile,
                "--auth-host=scram-sha-256", "--auth-local=trust", "--no-sync", "-E", "UTF8", "--locale=C")), dir);
        PostgresServer server = launchOnFreePort(dir, List.of(settings));
        server.psql("postgres", "CREATE DATABASE " + DATABASE);
        return server;
    }

    private static PostgresServer launchOnFreePort(Path dir, List<String> settings) {
        IllegalStateException lastFailure = null;
        for (int attempt = 0; attempt < START_PORT_ATTEMPTS; attempt++) {
            int port = FreePorts.next();
            PostgresServer server = new PostgresServer(dir, settings, port, null);
            try {
                server.postmaster = server.launch();
                return server;
            } catch (IllegalStateException e) {
                lastFailure = e;
                if (!server.logSince(0).contains("could not bind")) {
                    throw e;
                }
            }
        }
        throw lastFailure;
    }

    /** @return the TCP port on 127.0.0.1; it stays the same across restarts */
    public int port() {
        return port;
    }

    /** @return the password of {@value #USER} */
    public String password() {
        return PASSWORD;
    }

    /** @return {@code jdbc:postgresql://127.0.0.1:PORT/dlock?user=dlock&password=...} */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    /** @return the JDBC URL of {@code database} on this server, with user and password */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + RedisServer.HOST + ":" + port + "/" + database + "?user=" + USER + "&password=" + PASSWORD;
    }

    /** @return the directory of the server's Unix socket (also its temp directory) */
    public Path socketDir() {
        return dir;
    }

    /** @return the process id of the postmaster; changes when the server is started again */
    public synchronized long pid() {
        return postmaster.pid();
    }

    /** @return whether the postmaster is alive (a paused server counts as running) */
    public synchronized boolean isRunning() {
        return !closed && postmaster != null && postmaster.isAlive();
    }

    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Runs SQL in {@value #DATABASE} with {@code psql} over the private socket as {@value #USER}.
     *
     * @return psql's unaligned, tuples-only output, stripped (one row per line, columns split by {@code |})
     * @throws IllegalStateException with psql's message when the statement fails
     */
    public String sql(String sql) {
        return psql(DATABASE, sql);
    }

    private String psql(String database, String sql) {
        return PostgresInstall.run(List.of(PostgresInstall.binary("psql"), "-X", "-q", "-A", "-t",
                "-v", "ON_ERROR_STOP=1", "-h", dir.toString(), "-p", Integer.toString(port), "-U", USER,
                "-d", database, "-c", sql), dir).strip();
    }

    /** Kills the postmaster and every backend with SIGKILL, like a crash, and waits until all are gone. */
    public synchronized void kill() {
        if (postmaster == null) {
            return;
        }
        List<ProcessHandle> all = processes();
        all.forEach(ProcessHandle::destroyForcibly);
        all.forEach(PostgresServer::awaitGone);
        ProcessReaper.killAndWait(postmaster);
        paused = false;
    }

    /**
     * Fast shutdown (SIGINT to the postmaster: open transactions are rolled back, clients are
     * disconnected, a checkpoint is written) and waits until every process of the server has exited.
     */
    public synchronized void stopFast() {
        if (!isRunning()) {
            return;
        }
        if (paused) {
            resume();
        }
        List<ProcessHandle> all = processes();
        ProcessSignals.send(postmaster, "-INT");
        all.forEach(PostgresServer::awaitGone);
        ProcessReaper.killAndWait(postmaster);
    }

    /**
     * Stops every process of the server with SIGSTOP and waits until the kernel reports them stopped:
     * connections stay open but nothing answers.
     */
    public synchronized void pause() {
        if (!isRunning()) {
            throw new IllegalStateException("cannot pause " + this + ": not running");
        }
        signalAll("-STOP");
        paused = true;
        ProcessSignals.awaitStopped(postmaster, true);
    }

    /** Resumes a paused server (SIGCONT to every process of it). */
    public synchronized void resume() {
        if (!isRunning()) {
            paused = false;
            return;
        }
        signalAll("-CONT");
        paused = false;
        ProcessSignals.awaitStopped(postmaster, false);
    }

    /**
     * Starts the server again on the same port with the same data (after {@link #kill()} this is crash
     * recovery) and waits until it accepts connections. A running server is first stopped fast.
     */
    public synchronized void startAgain() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        if (isRunning()) {
            stopFast();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                postmaster = launch();
                return;
            } catch (IllegalStateException e) {
                // the port may still be held a moment by the killed server's sockets
                if (!logSince(0).contains("could not bind") || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                pauseBriefly();
            }
        }
    }

    /** Fast shutdown, then {@link #startAgain()}. */
    public void restartFast() {
        stopFast();
        startAgain();
    }

    /**
     * Makes a streaming replica of this server ({@code pg_basebackup -R -X stream}) and starts it on
     * its own free port; returns once it streams from this server.
     *
     * @param synchronous whether this server then waits for the replica at every commit ({@code
     *     synchronous_standby_names = '*'}, synchronous_commit on): a committed transaction is on both
     */
    public PostgresServer startReplica(boolean synchronous) {
        Path replicaDir = PostgresInstall.createTempDir("dlock-pg-replica-");
        PostgresInstall.run(PostgresInstall.asServerUser(List.of(PostgresInstall.binary("pg_basebackup"),
                "-h", dir.toString(), "-p", Integer.toString(port), "-U", USER,
                "-D", replicaDir.resolve("data").toString(), "-R", "-X", "stream", "-c", "fast")), replicaDir);
        PostgresServer replica = launchOnFreePort(replicaDir, settings);
        if (synchronous) {
            sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
            sql("SELECT pg_reload_conf()");
        }
        String wanted = synchronous ? "sync" : "async";
        awaitTrue("a " + wanted + " replica streaming from " + this, () ->
                !sql("SELECT 1 FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = '" + wanted + "'").isEmpty());
        return replica;
    }

    /** Promotes this replica to a primary ({@code pg_promote}) and waits until it accepts writes. */
    public void promote() {
        String promoted = sql("SELECT pg_promote(true, 60)");
        if (!"t".equals(promoted)) {
            throw new IllegalStateException("pg_promote did not finish on " + this + ": " + promoted);
        }
        awaitTrue(this + " leaving recovery", () -> "f".equals(sql("SELECT pg_is_in_recovery()")));
    }

    /** @return the path of the server's log (stdout and stderr of postgres) */
    public Path logFile() {
        return dir.resolve("postgres.log");
    }

    /** Kills the server and deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (paused) {
            resume();
        }
        kill();
        closed = true;
        ProcessReaper.deleteRecursively(dir);
        ProcessReaper.unregisterDirectory(dir);
    }

    @Override
    public String toString() {
        return "PostgresServer[127.0.0.1:" + port + (closed ? ", closed" : isPaused() ? ", paused" : isRunning() ? "" : ", stopped") + "]";
    }

    // ---------------------------------------------------------------------------------------------

    private Process launch() {
        List<String> cmd = new ArrayList<>(List.of(PostgresInstall.binary("postgres"),
                "-D", data.toString(), "-p", Integer.toString(port), "-k", dir.toString(),
                "-c", "listen_addresses=" + RedisServer.HOST,
                "-c", "fsync=off",
                "-c", "full_page_writes=off",
                "-c", "max_connections=300",
                "-c", "shared_buffers=32MB",
                "-c", "logging_collector=off"));
        for (String setting : settings) {
            cmd.add("-c");
            cmd.add(setting);
        }
        long offset = logSize();
        ProcessBuilder pb = new ProcessBuilder(PostgresInstall.asServerUser(cmd))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("HOME", dir.toString());
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run postgres: " + e.getMessage(), e);
        }
        ProcessReaper.register(process);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!logSince(offset).contains("ready to accept")) {
            if (!process.isAlive()) {
                ProcessReaper.killAndWait(process);
                throw failure("postgres on port " + port + " exited with code " + process.exitValue());
            }
            if (System.nanoTime() - deadline >= 0) {
                ProcessReaper.killAndWait(process);
                throw failure("postgres on port " + port + " did not get ready within " + START_TIMEOUT.toSeconds() + " s");
            }
            ProcessSignals.waitOrExit(process, Duration.ofMillis(10));
        }
        return process;
    }

    /** @return the postmaster and its current children (backends, walwriter, ...) */
    private List<ProcessHandle> processes() {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(postmaster.toHandle());
        postmaster.toHandle().descendants().forEach(all::add);
        return all;
    }

    /**
     * Signals the postmaster first (once stopped it forks no new backend), then each of its children;
     * a child that exited meanwhile (a client's backend ending) is no error.
     */
    private void signalAll(String signal) {
        ProcessSignals.send(postmaster, signal);
        List<String> cmd = new ArrayList<>(List.of("kill", signal));
        postmaster.toHandle().descendants().forEach(p -> cmd.add(Long.toString(p.pid())));
        if (cmd.size() == 2) {
            return;
        }
        try {
            PostgresInstall.run(cmd, null);
        } catch (IllegalStateException e) {
            boolean onlyGone = e.getMessage().lines().skip(1).allMatch(line -> line.contains("No such process"));
            if (!onlyGone) {
                throw e;
            }
        }
    }

    private static void awaitGone(ProcessHandle process) {
        try {
            process.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("process " + process.pid() + " did not exit", e);
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            pauseBriefly();
        }
    }

    /** The poll interval of the harness's waits for a condition it cannot be told about. */
    private static void pauseBriefly() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }

    private long logSize() {
        try {
            return Files.exists(logFile()) ? Files.size(logFile()) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private String logSince(long offset) {
        try {
            byte[] bytes = Files.exists(logFile()) ? Files.readAllBytes(logFile()) : new byte[0];
            int from = (int) Math.min(offset, bytes.length);
            return new String(bytes, from, bytes.length - from, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private IllegalStateException failure(String message) {
        return new IllegalStateException(message + "\n--- postgres.log (tail) ---\n" + ProcessReaper.tail(logFile(), 40));
    }
}
