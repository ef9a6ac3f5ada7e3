package dev.dlock.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
 *
 * <p>The process is started by {@link PostgresLaunch}; replicas, synchronous replication and
 * promotion are {@link PostgresReplication}'s; {@link PgBouncer} pools connections in front of it.
 */
public final class PostgresServer implements AutoCloseable {

    /** The superuser of every cluster the harness creates. */
    public static final String USER = "dlock";
    /** The database every cluster the harness creates has, besides {@code postgres}. */
    public static final String DATABASE = "dlock";
    private static final String PASSWORD = "dlock-test-secret";

    private final PostgresLaunch launch;
    private final Path dir;
    private final int port;
    private Process postmaster;
    private volatile boolean paused;
    private volatile boolean closed;

    PostgresServer(PostgresLaunch.Started started) {
        this.launch = started.launch();
        this.dir = launch.dir();
        this.port = launch.port();
        this.postmaster = started.postmaster();
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
        PostgresServer server = new PostgresServer(PostgresLaunch.onFreePort(dir, List.of(settings)));
        server.psql("postgres", "CREATE DATABASE " + DATABASE);
        return server;
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
        postmaster = launch.onItsPort();
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
        return startReplica(synchronous, 0);
    }

    /**
     * As {@link #startReplica(boolean)}, on {@code replicaPort}: the port of a server killed before,
     * such as a primary that failed over, which clients still name in their URL.
     *
     * @param replicaPort the replica's port on 127.0.0.1, or 0 for a free one
     */
    public PostgresServer startReplica(boolean synchronous, int replicaPort) {
        return PostgresReplication.startReplica(this, launch.settings(), synchronous, replicaPort);
    }

    /**
     * Makes this primary wait for its replica at every commit ({@code synchronous_standby_names =
     * '*'}), or no longer; returns once a replica streams from it in that state.
     */
    public void replicateSynchronously(boolean synchronous) {
        PostgresReplication.replicateSynchronously(this, synchronous);
    }

    /** Waits until {@code replica} has received and flushed all the WAL this server had flushed when called. */
    public void awaitFlushedOn(PostgresServer replica) {
        PostgresReplication.awaitFlushedOn(this, replica);
    }

    /** Promotes this replica to a primary ({@code pg_promote}) and waits until it accepts writes. */
    public void promote() {
        PostgresReplication.promote(this);
    }

    /** @return the path of the server's log (stdout and stderr of postgres) */
    public Path logFile() {
        return launch.logFile();
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
}
