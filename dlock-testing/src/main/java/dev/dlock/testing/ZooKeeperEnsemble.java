package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A ZooKeeper ensemble of real servers ({@link ZooKeeperServer}: each {@code QuorumPeerMain} in a JVM of
 * its own) on free loopback ports, for a test class; as a JUnit 5 extension in a static field it
 * starts in {@code beforeAll} and stops in {@code afterAll}, and after each test a paused server is
 * resumed, a killed one started again, and the ensemble awaited until it serves.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ZooKeeperEnsemble zookeeper = ZooKeeperEnsemble.of(3);
 * }</pre>
 *
 * <p>The servers tick every {@value #TICK_MS} ms and grant session timeouts between 1 s and 60 s, so
 * that tests can use short sessions. Four-letter commands ({@code srvr}, {@code mntr}, ...) are on.
 */
public final class ZooKeeperEnsemble implements BeforeAllCallback, AfterAllCallback, AfterEachCallback, AutoCloseable {

    static final int TICK_MS = 250;
    private static final Duration QUORUM_TIMEOUT = Duration.ofSeconds(60);

    private final int size;
    private final List<ZooKeeperServer> servers = new ArrayList<>();
    private String clientPortAddress = RedisServer.HOST;
    private Path dir;
    private int classDepth;

    private ZooKeeperEnsemble(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("an ensemble needs at least one server, got " + size);
        }
        this.size = size;
    }

    /** @return an ensemble of {@code size} servers, started by {@link #beforeAll} or {@link #start()} */
    public static ZooKeeperEnsemble of(int size) {
        return new ZooKeeperEnsemble(size);
    }

    /**
     * Lets clients reach the servers on every address of the host (client ports bound to
     * {@code 0.0.0.0}), not only on loopback: for a client in a network namespace of its own
     * ({@link NetworkNamespace}), which reaches the host at {@link NetworkNamespace#hostAddress()}.
     * The servers still talk to each other on loopback.
     *
     * @return this ensemble, before it starts
     */
    public synchronized ZooKeeperEnsemble onAllAddresses() {
        if (!servers.isEmpty()) {
            throw new IllegalStateException("the ensemble has started already");
        }
        clientPortAddress = "0.0.0.0";
        return this;
    }

    /** Starts the servers and waits until they serve with a leader. */
    public synchronized ZooKeeperEnsemble start() {
        try {
            dir = Files.createTempDirectory("dlock-zk-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temp dir", e);
        }
        ProcessReaper.registerDirectory(dir);
        List<String> peers = new ArrayList<>();
        List<Integer> clientPorts = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            clientPorts.add(FreePorts.next());
            peers.add("server." + id + "=" + RedisServer.HOST + ":" + FreePorts.next() + ":" + FreePorts.next()
                    + ";" + clientPortAddress + ":" + clientPorts.get(id - 1));
        }
        for (int id = 1; id <= size; id++) {
            Path serverDir = dir.resolve("server" + id);
            Path data = serverDir.resolve("data");
            write(data.resolve("myid"), id + "\n");
            List<String> config = new ArrayList<>(List.of(
                    "tickTime=" + TICK_MS,
                    "initLimit=40",
                    "syncLimit=8",
                    "dataDir=" + data,
                    "clientPortAddress=" + clientPortAddress,
                    "clientPort=" + clientPorts.get(id - 1),
                    "minSessionTimeout=1000",
                    "maxSessionTimeout=60000",
                    "4lw.commands.whitelist=*",
                    "admin.enableServer=false",
                    "preAllocSize=1024",
                    "snapCount=10000",
                    "autopurge.purgeInterval=0",
                    // emptied lock parents go within a second, so a test sees nothing left
                    "znode.container.checkIntervalMs=500",
                    "znode.container.minIntervalMs=100",
                    "standaloneEnabled=" + (size == 1)));
            config.addAll(peers);
            write(serverDir.resolve("zoo.cfg"), String.join("\n", config) + "\n");
            servers.add(new ZooKeeperServer(id, clientPorts.get(id - 1), serverDir));
        }
        servers.forEach(ZooKeeperServer::launch);
        awaitQuorum();
        return this;
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    /** @return every server, by index (server {@code i + 1} at index {@code i}) */
    public List<ZooKeeperServer> servers() {
        return List.copyOf(servers);
    }

    /** @return the server at {@code index}, 0-based */
    public ZooKeeperServer server(int index) {
        return servers.get(index);
    }

    /**
     * The requests the running servers received so far (their {@code zk_packets_received}, pings
     * included), summed over the ensemble. The four-letter command that reads it counts too: each
     * call adds one per running server.
     */
    public long packetsReceived() {
        long sum = 0;
        for (ZooKeeperServer server : servers()) {
            if (!server.isRunning() || server.isPaused()) {
                continue;
            }
            for (String line : server.fourLetter("mntr").split("\n")) {
                if (line.startsWith("zk_packets_received")) {
                    sum += Long.parseLong(line.split("\\s+")[1]);
                }
            }
        }
        return sum;
    }

    /** @return the connect string of every server, {@code 127.0.0.1:P1,127.0.0.1:P2,...} */
    public String connectString() {
        return servers.stream().map(ZooKeeperServer::address).collect(Collectors.joining(","));
    }

    /**
     * @param host an address of this host where the servers are reached (see {@link #onAllAddresses()})
     * @return the connect string of every server at {@code host}: {@code HOST:P1,HOST:P2,...}
     */
    public String connectStringAt(String host) {
        return servers.stream().map(server -> host + ":" + server.clientPort()).collect(Collectors.joining(","));
    }

    /** @return the connect string with a chroot, such as {@code /app-locks} */
    public String connectString(String chroot) {
        return connectString() + chroot;
    }

    /** @return the server that leads now, if one does and answers */
    public Optional<ZooKeeperServer> leader() {
        return servers.stream().filter(server -> !server.isPaused() && server.isRunning())
                .filter(server -> server.mode().equals("leader")).findFirst();
    }

    /** Waits (up to 60 s) until a leader leads and every running, unpaused server serves. */
    public void awaitQuorum() {
        long deadline = System.nanoTime() + QUORUM_TIMEOUT.toNanos();
        while (true) {
            List<ZooKeeperServer> live = servers.stream().filter(s -> s.isRunning() && !s.isPaused()).toList();
            List<String> modes = live.stream().map(ZooKeeperServer::mode).toList();
            boolean serving = modes.stream().allMatch(mode -> !mode.isEmpty());
            if (serving && (modes.contains("leader") || modes.contains("standalone"))) {
                return;
            }
            if (System.nanoTime() - deadline >= 0 || servers.stream().noneMatch(ZooKeeperServer::isRunning)) {
                StringBuilder message = new StringBuilder("the ZooKeeper ensemble did not serve within "
                        + QUORUM_TIMEOUT.toSeconds() + " s; modes " + modes);
                servers.forEach(s -> message.append("\n--- ").append(s).append(" ---\n").append(s.logTail()));
                throw new IllegalStateException(message.toString());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the ZooKeeper ensemble", e);
            }
        }
    }

    /** Resumes paused servers, starts killed ones again and waits until the ensemble serves. */
    public synchronized void heal() {
        for (ZooKeeperServer server : servers) {
            if (server.isPaused()) {
                server.resume();
            }
            if (!server.isRunning()) {
                server.launch();
            }
        }
        awaitQuorum();
    }

    /** Starts a killed server again on its ports, with its data. */
    public void restart(ZooKeeperServer server) {
        server.launch();
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (classDepth++ == 0) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        heal();
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (--classDepth == 0) {
            close();
        }
    }

    @Override
    public synchronized void close() {
        servers.forEach(ZooKeeperServer::kill);
        servers.clear();
        if (dir != null) {
            ProcessReaper.deleteRecursively(dir);
            ProcessReaper.unregisterDirectory(dir);
            dir = null;
        }
    }
}
