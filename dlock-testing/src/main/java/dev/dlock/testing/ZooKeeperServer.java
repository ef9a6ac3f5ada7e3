package dev.dlock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One ZooKeeper server of a {@link ZooKeeperEnsemble}: {@code org.apache.zookeeper.server.quorum.QuorumPeerMain}
 * in a JVM of its own, on this JVM's class path (which holds {@code org.apache.zookeeper:zookeeper}
 * through dlock-testing), with a generated {@code zoo.cfg} and data directory. It is addressed by its
 * own process id, so a test can kill, pause and start it again; its data survives {@link #kill()}.
 * Thread-safe.
 */
public final class ZooKeeperServer {

    private static final String MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

    private final int id;
    private final int clientPort;
    private final Path dir;
    private final Path log;
    private Process process;
    private volatile boolean paused;

    ZooKeeperServer(int id, int clientPort, Path dir) {
        this.id = id;
        this.clientPort = clientPort;
        this.dir = dir;
        this.log = dir.resolve("server.log");
    }

    /** @return the server's id in the ensemble (1-based, its {@code myid}) */
    public int id() {
        return id;
    }

    /** @return the client port on 127.0.0.1 */
    public int clientPort() {
        return clientPort;
    }

    /** @return {@code 127.0.0.1:PORT} */
    public String address() {
        return RedisServer.HOST + ":" + clientPort;
    }

    /** @return the process id of the server's JVM; changes when it is started again */
    public synchronized long pid() {
        return process.pid();
    }

    /** @return whether the JVM is alive (a paused server counts as running) */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    public boolean isPaused() {
        return paused && isRunning();
    }

    /** Starts the server's JVM (returns once started, not once it serves: see {@link ZooKeeperEnsemble#awaitQuorum()}). */
    synchronized void launch() {
        if (isRunning()) {
            throw new IllegalStateException(this + " is running already");
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Xmx96m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                // the data directory is a temp directory: no fsync on each transaction
                "-Dzookeeper.forceSync=no",
                "-Dzookeeper.admin.enableServer=false",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                MAIN_CLASS, dir.resolve("zoo.cfg").toString()));
        try {
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start ZooKeeper server " + id, e);
        }
        ProcessReaper.register(process);
        paused = false;
    }

    /** Kills the server's JVM with SIGKILL, like a crash, and waits until it is gone. */
    public synchronized void kill() {
        if (process != null) {
            ProcessReaper.killAndWait(process);
            paused = false;
        }
    }

    /** Stops the server's JVM with SIGSTOP and waits until the kernel reports it stopped. */
    public synchronized void pause() {
        if (!isRunning()) {
            throw new IllegalStateException("cannot pause " + this + ": not running");
        }
        ProcessSignals.send(process, "-STOP");
        paused = true;
        ProcessSignals.awaitStopped(process, true);
    }

    /** Lets a paused server run on (SIGCONT). */
    public synchronized void resume() {
        if (!isRunning()) {
            paused = false;
            return;
        }
        ProcessSignals.send(process, "-CONT");
        paused = false;
        ProcessSignals.awaitStopped(process, false);
    }

    /**
     * The server's answer to a four-letter command ({@code srvr}, {@code ruok}, {@code mntr}), or ""
     * when it does not answer within a second.
     */
    public String fourLetter(String command) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(RedisServer.HOST, clientPort), 1000);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** @return "leader", "follower", "standalone", or "" when it does not serve (no quorum, down, paused) */
    public String mode() {
        for (String line : fourLetter("srvr").split("\n")) {
            if (line.startsWith("Mode: ")) {
                return line.substring("Mode: ".length()).strip();
            }
        }
        return "";
    }

    /** @return the last lines of the server's log, for failure messages */
    public String logTail() {
        return Files.exists(log) ? ProcessReaper.tail(log, 40) : "";
    }

    @Override
    public String toString() {
        return "ZooKeeper server " + id + " at " + address();
    }
}
