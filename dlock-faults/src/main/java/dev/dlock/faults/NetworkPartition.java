package dev.dlock.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A network namespace for one client, joined to the host by two veth pairs the campaign creates
 * with addresses it assigns: one to reach Redis ({@code 10.211.N.1} on the host side), one to reach
 * the fenced resource ({@code 10.212.N.1}). A partition takes the Redis pair's host end down, so the
 * client loses Redis but can still report to the resource. Needs root and {@code ip}; removed on
 * {@link #close()}.
 */
final class NetworkPartition implements AutoCloseable {

    private final String namespace;
    private final String redisLink;
    private final String resourceLink;
    final String redisHostAddress;
    final String resourceHostAddress;

    private NetworkPartition(int n) {
        this.namespace = "dlockf" + n;
        this.redisLink = "dlfr" + n;
        this.resourceLink = "dlfs" + n;
        this.redisHostAddress = "10.211." + n + ".1";
        this.resourceHostAddress = "10.212." + n + ".1";
    }

    /** Creates the namespace and its links, or says why it cannot. */
    static Optional<NetworkPartition> create(StringBuilder whyNot) {
        if (!"root".equals(System.getProperty("user.name"))) {
            whyNot.append("network partition skipped: creating network namespaces needs root (running as ")
                    .append(System.getProperty("user.name")).append(")");
            return Optional.empty();
        }
        int n = (int) (ProcessHandle.current().pid() % 200) + 20;
        NetworkPartition partition = new NetworkPartition(n);
        try {
            partition.setUp(n);
            return Optional.of(partition);
        } catch (RuntimeException e) {
            partition.close();
            whyNot.append("network partition skipped: ").append(e.getMessage());
            return Optional.empty();
        }
    }

    private void setUp(int n) {
        run("ip", "netns", "add", namespace);
        run("ip", "-n", namespace, "link", "set", "lo", "up");
        pair(redisLink, redisHostAddress, "10.211." + n + ".2");
        pair(resourceLink, resourceHostAddress, "10.212." + n + ".2");
    }

    private void pair(String link, String hostAddress, String inside) {
        run("ip", "link", "add", link, "type", "veth", "peer", "name", link + "p");
        run("ip", "link", "set", link + "p", "netns", namespace);
        run("ip", "addr", "add", hostAddress + "/30", "dev", link);
        run("ip", "link", "set", link, "up");
        run("ip", "-n", namespace, "addr", "add", inside + "/30", "dev", link + "p");
        run("ip", "-n", namespace, "link", "set", link + "p", "up");
    }

    /** The command prefix that runs a process inside the namespace. */
    List<String> wrapper() {
        return List.of("ip", "netns", "exec", namespace);
    }

    void cut() {
        run("ip", "link", "set", redisLink, "down");
    }

    void heal() {
        run("ip", "link", "set", redisLink, "up");
    }

    @Override
    public void close() {
        for (List<String> cmd : List.of(List.of("ip", "link", "del", redisLink), List.of("ip", "link", "del", resourceLink),
                List.of("ip", "netns", "del", namespace))) {
            try {
                run(cmd.toArray(String[]::new));
            } catch (RuntimeException alreadyGone) {
                // removed with the namespace, or never created
            }
        }
    }

    private static void run(String... cmd) {
        try {
            Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static List<String> argv(String... parts) {
        return new ArrayList<>(List.of(parts));
    }
}
