package dev.dlock.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A real PgBouncer ({@code pgbouncer}, the Debian package of that name) in front of a {@link
 * PostgresServer}, by default in {@code pool_mode = transaction}: each transaction may run on another
 * server connection, so session state (LISTEN, advisory locks, prepared statements) does not carry over.
 * Runs as the {@code postgres} OS user when the tests run as root. Thread-safe.
 */
public final class PgBouncer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Path dir;
    private final int port;
    private Process process;
    private boolean closed;

    private PgBouncer(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts PgBouncer on a free loopback port, forwarding database {@value PostgresServer#DATABASE}
     * to {@code server} in transaction pooling with at most {@code serverConnections} server connections.
     *
     * @throws IllegalStateException if {@code pgbouncer} is missing or does not start; with its log
     */
    public static PgBouncer start(PostgresServer server, int serverConnections) {
        return start(server, serverConnections, "transaction");
    }

    /**
     * As {@link #start(PostgresServer, int)}, in the pooling mode given.
     *
     * @param poolMode {@code session}, {@code transaction} or {@code statement}
     */
    public static PgBouncer start(PostgresServer server, int serverConnections, String poolMode) {
        Path dir = PostgresInstall.createTempDir("dlock-pgbouncer-");
        Path users = dir.resolve("userlist.txt");
        PostgresInstall.write(users, "\"" + PostgresServer.USER + "\" \"" + server.password() + "\"\n");
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = FreePorts.next();
            Path config = dir.resolve("pgbouncer.ini");
            PostgresInstall.write(config, String.join("\n",
                    "[databases]",
                    PostgresServer.DATABASE + " = host=" + RedisServer.HOST + " port=" + server.port()
                            + " dbname=" + PostgresServer.DATABASE,
                    "[pgbouncer]",
                    "listen_addr = " + RedisServer.HOST,
                    "listen_port = " + port,
                    "unix_socket_dir = " + dir,
                    "auth_type = scram-sha-256",
                    "auth_file = " + users,
                    "pool_mode = " + poolMode,
                    "default_pool_size = " + serverConnections,
                    "max_client_conn = 1000",
                    // PgJDBC sends it at connect; PgBouncer refuses unknown startup parameters otherwise
                    "ignore_startup_parameters = extra_float_digits",
                    "admin_users = " + PostgresServer.USER,
                    ""));
            PostgresInstall.ownForServer(users, config);
            Process process = launch(dir, config);
            try {
                awaitReady(process, dir);
                return new PgBouncer(dir, port, process);
            } catch (IllegalStateException e) {
                ProcessReaper.killAndWait(process);
                failure = e;
                if (!ProcessReaper.tail(log(dir), 40).contains("in use")) {
                    break;
                }
            }
        }
        ProcessReaper.deleteRecursively(dir);
        throw failure;
    }

    public int port() {
        return port;
    }

    /**
     * @return the JDBC URL of the pooled database, with {@code prepareThreshold=0}: PgBouncer 1.18 in
     *     transaction pooling cannot keep server-side prepared statements
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + RedisServer.HOST + ":" + port + "/" + PostgresServer.DATABASE
                + "?user=" + PostgresServer.USER + "&password=dlock-test-secret&prepareThreshold=0";
    }

    /**
     * Kills PgBouncer (SIGKILL: every client and server connection drops at once, open transactions
     * are rolled back by the server) and starts it again on the same port with the same settings;
     * returns once it accepts connections.
     *
     * @throws IllegalStateException if it does not start again within 20 s; with its log
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("PgBouncer on port " + port + " is closed");
        }
        ProcessReaper.killAndWait(process);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            // a fresh log, so that the ready line found is the new process's
            try {
                Files.move(log(dir), dir.resolve("pgbouncer-before-restart.log"), StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException("could not move the log of PgBouncer on port " + port + " aside", e);
            }
            process = launch(dir, dir.resolve("pgbouncer.ini"));
            try {
                awaitReady(process, dir);
                return;
            } catch (IllegalStateException e) {
                ProcessReaper.killAndWait(process);
                // the killed process's listening socket may hold the port a moment longer
                if (!ProcessReaper.tail(log(dir), 40).contains("in use") || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            }
        }
    }

    /** Kills PgBouncer and deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        ProcessReaper.killAndWait(process);
        ProcessReaper.deleteRecursively(dir);
        ProcessReaper.unregisterDirectory(dir);
    }

    private static Process launch(Path dir, Path config) {
        ProcessBuilder pb = new ProcessBuilder(PostgresInstall.asServerUser(List.of(pgbouncerBinary(), config.toString())))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log(dir).toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        try {
            Process process = pb.start();
            ProcessReaper.register(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run pgbouncer (Debian: apt-get install pgbouncer): " + e.getMessage(), e);
        }
    }

    private static String pgbouncerBinary() {
        for (String candidate : List.of("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "pgbouncer";
    }

    private static void awaitReady(Process process, Path dir) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!ProcessReaper.tail(log(dir), 40).contains("process up")) {
            if (!process.isAlive() || System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("pgbouncer did not start\n--- pgbouncer.log (tail) ---\n"
                        + ProcessReaper.tail(log(dir), 40));
            }
            ProcessSignals.waitOrExit(process, Duration.ofMillis(10));
        }
    }

    private static Path log(Path dir) {
        return dir.resolve("pgbouncer.log");
    }
}
