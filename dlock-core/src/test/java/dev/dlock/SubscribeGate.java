package dev.dlock;

import dev.dlock.testing.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP relay in front of a real Redis that can hold back one SUBSCRIBE command on its way to the
 * server, so a test can put a release exactly into the window between a waiter's refused attempt
 * and its subscription taking effect — a window that is otherwise a few hundred microseconds wide
 * and only hit by luck.
 *
 * <p>Bytes are relayed unchanged in both directions. After {@link #holdNextSubscribe()}, the first
 * client-to-server chunk that contains a RESP-encoded {@code SUBSCRIBE} (not {@code UNSUBSCRIBE}
 * or {@code PSUBSCRIBE}: those have other length prefixes) is kept back, together with everything
 * after it on that connection, until the returned {@link Held#let()} is called. Nothing reaches
 * the server in the meantime, so the server has no subscriber for that channel yet.
 */
final class SubscribeGate implements AutoCloseable {

    private static final byte[] SUBSCRIBE = "$9\r\nSUBSCRIBE\r\n".getBytes(StandardCharsets.US_ASCII);

    private final RedisServer server;
    private final ServerSocket listener;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicReference<Held> armed = new AtomicReference<>();
    private volatile boolean closed;

    SubscribeGate(RedisServer server) {
        this.server = server;
        try {
            listener = new ServerSocket(0, 50, InetAddress.getByName(server.host()));
        } catch (IOException e) {
            throw new UncheckedIOException("no loopback port for the relay", e);
        }
        daemon("gate-accept", this::acceptLoop).start();
    }

    /** @return a Redis URI that reaches the server through this relay */
    String uri() {
        return "redis://" + server.host() + ":" + listener.getLocalPort();
    }

    /** Holds back the next SUBSCRIBE seen on any connection. */
    Held holdNextSubscribe() {
        Held held = new Held();
        if (!armed.compareAndSet(null, held)) {
            throw new IllegalStateException("a SUBSCRIBE is already being waited for");
        }
        return held;
    }

    /** A SUBSCRIBE kept back by the relay. */
    static final class Held {
        private final CompletableFuture<Void> arrived = new CompletableFuture<>();
        private final CountDownLatch let = new CountDownLatch(1);

        /** @return completes once the relay has the SUBSCRIBE in hand (and has not forwarded it) */
        CompletableFuture<Void> arrived() {
            return arrived;
        }

        /** Forwards the SUBSCRIBE and whatever followed it. */
        void let() {
            let.countDown();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        Held held = armed.getAndSet(null);
        if (held != null) {
            held.let();
        }
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket(server.host(), server.port());
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                daemon("gate-up", () -> pump(client, upstream, true)).start();
                daemon("gate-down", () -> pump(upstream, client, false)).start();
            } catch (IOException e) {
                // closed, or the server is gone: the client sees its connection fail
            }
        }
    }

    private void pump(Socket from, Socket to, boolean towardsServer) {
        byte[] buffer = new byte[16 * 1024];
        // the end of the previous chunk, so a command split over two reads is still recognised
        byte[] tail = new byte[0];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (towardsServer) {
                    byte[] window = concat(tail, buffer, n);
                    Held held = armed.get();
                    if (held != null && contains(window, SUBSCRIBE) && armed.compareAndSet(held, null)) {
                        held.arrived.complete(null);
                        held.let.await();
                    }
                    tail = Arrays.copyOfRange(window, Math.max(0, window.length - SUBSCRIBE.length + 1), window.length);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed: closing both (below) passes that on to the other side
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static byte[] concat(byte[] head, byte[] buffer, int n) {
        byte[] all = Arrays.copyOf(head, head.length + n);
        System.arraycopy(buffer, 0, all, head.length, n);
        return all;
    }

    private static boolean contains(byte[] data, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= data.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
