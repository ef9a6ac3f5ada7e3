package dev.dlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redlock's nodes are told apart by their servers' run ids, not by their URLs: two URLs of one
 * server are refused when the client is built, and a node whose connection comes back to another
 * node's server (here a TCP forwarder switched behind its URL) no longer votes.
 */
class DistinctRedlockServersTest {

    @RegisterExtension
    static final LockServers servers = LockServers.redlock(3).withRedlockNodeTimeout(Duration.ofMillis(250));

    @Test
    void twoUrlsOfOneServerAreRefusedWhenTheClientIsBuilt() {
        int port = servers.master(0).port();
        // the third node is down: the two names of one server would be the quorum
        servers.master(2).kill();
        assertThatThrownBy(() -> LockClient.builder()
                .store(RedisStore.redlock("redis://127.0.0.1:" + port, "redis://localhost:" + port, servers.master(2).uri()))
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RedisStore.redlock needs distinct servers")
                .hasMessageContaining("localhost:" + port)
                .hasMessageContaining("run_id");
    }

    @Test
    void aNodeThatReconnectsToAnotherNodesServerNoLongerVotes() throws Exception {
        try (Forwarder forwarder = new Forwarder(servers.master(2).port())) {
            LockClient client = servers.track(LockClient.builder()
                    .store(RedisStore.redlock(servers.master(0).uri(), servers.master(1).uri(), "redis://127.0.0.1:" + forwarder.port())
                    .nodeTimeout(Duration.ofSeconds(1)))
                    .build());
            DistributedLock lock = client.getLock("aliased");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();

            forwarder.switchTo(servers.master(0).port());
            // with node 1 down, only node 0 answers, once directly and once behind the forwarder
            servers.master(1).kill();
            List<String> grants = new CopyOnWriteArrayList<>();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThatThrownBy(() -> {
                        if (lock.tryLock()) {
                            grants.add("granted by one server voting twice");
                        }
                    }).isInstanceOf(LockBackendException.class)
                            .hasMessageContaining("the same server as Redlock node"));
            // not even while the reconnected node's server was being identified
            assertThat(grants).isEmpty();
            // a refused attempt's abandon may still be on its way to node 0
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(servers.master(0).keys("dlock:{aliased}")).isEmpty());
        }
    }

    private static final Duration LEASE = Duration.ofSeconds(10);

    @Test
    void aCallResentAfterTheLinkCameBackToAnotherServerIsNotCounted() throws Exception {
        try (Forwarder forwarder = new Forwarder(servers.master(2).port())) {
            LockClient client = servers.track(LockClient.builder()
                    .store(RedisStore.redlock(servers.master(0).uri(), servers.master(1).uri(), "redis://127.0.0.1:" + forwarder.port())
                    .nodeTimeout(Duration.ofSeconds(5)))
                    .build());
            DistributedLock lock = client.getLock("resent");
            servers.master(1).kill();
            // the third node's acquire is sent and swallowed; its link then comes back to node 0's
            // server, and the client library sends the unanswered call again there
            forwarder.swallow();
            Thread switcher = new Thread(() -> {
                await().atMost(Duration.ofSeconds(10)).until(() -> forwarder.swallowedBytes() > 0);
                forwarder.switchTo(servers.master(0).port());
            });
            switcher.start();
            List<String> outcome = new CopyOnWriteArrayList<>();
            try {
                outcome.add(lock.tryLock(Duration.ZERO, LEASE) ? "granted by one server voting twice" : "refused");
            } catch (LockBackendException e) {
                outcome.add("failed: " + e.getMessage());
            }
            switcher.join();
            assertThat(outcome).singleElement().asString().doesNotStartWith("granted");
            // the resent acquire may reach node 0's server after the failed attempt's release did
            // (on a busy machine, after the node's timeout): its copy lasts until its lease ends
            await().atMost(LEASE.plusSeconds(5)).untilAsserted(() ->
                    assertThat(servers.master(0).keys("dlock:{resent}")).isEmpty());
        }
    }

    /**
     * Forwards a local port to a Redis port; switching the target drops every open connection. While
     * swallowing, what the client sends is read and dropped: its calls stay unanswered.
     */
    private static final class Forwarder implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private final AtomicLong swallowed = new AtomicLong();
        private volatile boolean swallowing;
        private volatile int targetPort;

        Forwarder(int targetPort) throws IOException {
            this.targetPort = targetPort;
            Thread acceptor = new Thread(this::accept, "forwarder");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        void switchTo(int port) {
            targetPort = port;
            swallowing = false;
            dropAll();
        }

        void swallow() {
            swallowing = true;
        }

        long swallowedBytes() {
            return swallowed.get();
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    open.add(client);
                    open.add(server);
                    pump(client, server, true);
                    pump(server, client, false);
                } catch (IOException e) {
                    // closed, or the target refused: the client sees its connection drop
                }
            }
        }

        private void pump(Socket from, Socket to, boolean fromClient) {
            Thread thread = new Thread(() -> {
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    byte[] buffer = new byte[8192];
                    for (int read; (read = in.read(buffer)) >= 0; ) {
                        if (fromClient && swallowing) {
                            swallowed.addAndGet(read);
                        } else {
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    }
                } catch (IOException e) {
                    // one side closed
                } finally {
                    close(from);
                    close(to);
                }
            }, "forwarder-pump");
            thread.setDaemon(true);
            thread.start();
        }

        private void dropAll() {
            open.forEach(Forwarder::close);
            open.clear();
        }

        private static void close(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed already
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            dropAll();
        }
    }
}
