package dev.dlock.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace for one process under test, joined to the host by a veth pair: inside, the
 * host is {@link #hostAddress()} ({@code 10.213.N.1}), so a server bound to every address (such as
 * {@link ZooKeeperEnsemble#onAllAddresses()}) is reached there. {@link #cut()} takes the host's end
 * of the pair down: packets in either direction are dropped, no connection is reset, as in a network
 * partition; {@link #heal()} brings it up again. Needs root and {@code ip} (iproute2); removed on
 * {@link #close()}.
 */
public final class NetworkNamespace implements AutoCloseable {

    private final String name;
    private final String hostLink;
    private final String hostAddress;

    private NetworkNamespace(int n) {
        this.name = "dlockt" + n;
        this.hostLink = "dlkt" + n;
        this.hostAddress = "10.213." + n + ".1";
    }

    /**
     * Creates a namespace and its link, or says why it cannot (not root, no {@code ip}).
     *
     * @param whyNot where the reason goes when it cannot
     * @return the namespace, or empty
     */
    public static Optional<NetworkNamespace> create(StringBuilder whyNot) {
        if (!"root".equals(System.getProperty("user.name"))) {
            whyNot.append("creating a network namespace needs root (running as ").append(System.getProperty("user.name"))
                    .append(")");
            return Optional.empty();
        }
        // one per JVM at a time: the pid keeps concurrent test JVMs apart
        int n = (int) (ProcessHandle.current().pid() % 200) + 20;
        NetworkNamespace namespace = new NetworkNamespace(n);
        try {
            namespace.close();
            run("ip", "netns", "add", namespace.name);
            run("ip", "-n", namespace.name, "link", "set", "lo", "up");
            run("ip", "link", "add", namespace.hostLink, "type", "veth", "peer", "name", namespace.hostLink + "p");
            run("ip", "link", "set", namespace.hostLink + "p", "netns", namespace.name);
            run("ip", "addr", "add", namespace.hostAddress + "/30", "dev", namespace.hostLink);
            run("ip", "link", "set", namespace.hostLink, "up");
            run("ip", "-n", namespace.name, "addr", "add", "10.213." + n + ".2/30", "dev", namespace.hostLink + "p");
            run("ip", "-n", namespace.name, "link", "set", namespace.hostLink + "p", "up");
            return Optional.of(namespace);
        } catch (RuntimeException e) {
            namespace.close();
            whyNot.append(e.getMessage());
            return Optional.empty();
        }
    }

    /** @return the host's address as seen from inside the namespace */
    public String hostAddress() {
        return hostAddress;
    }

    /** @return the command words that run a process inside the namespace ({@code ip netns exec NAME}) */
    public List<String> wrapper() {
        return List.of("ip", "netns", "exec", name);
    }

    /** Cuts the namespace off from the host: its link goes down, packets are dropped. */
    public void cut() {
        run("ip", "link", "set", hostLink, "down");
    }

    /** Joins it to the host again. */
    public void heal() {
        run("ip", "link", "set", hostLink, "up");
    }

    /** Removes the link and the namespace; whatever of them exists. */
    @Override
    public void close() {
        quietly("ip", "link", "del", hostLink);
        quietly("ip", "netns", "del", name);
    }

    private static void quietly(String... command) {
        try {
            run(command);
        } catch (RuntimeException ignored) {
            // already gone
        }
    }

    private static void run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within 10 s");
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (exit " + process.exitValue() + "): "
                        + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", command) + " could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", command) + " interrupted", e);
        }
    }
}
