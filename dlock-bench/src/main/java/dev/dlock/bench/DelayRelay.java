package dev.dlock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP relay in front of one server that delays every byte by a fixed time in each direction,
 * so that loopback behaves like a network with a round trip of twice that delay. Delay only, no
 * bandwidth limit: what a reader takes off a socket is queued as a chunk with the time it is due,
 * and one writer thread delivers the chunks in order when they are due (the delay is the same for
 * every chunk, so arrival order is due order, per connection and over all of them). One thread
 * reads every connection (a selector), one writes; a connection closed on either side is closed
 * on both once what was read before has been delivered.
 */
final class DelayRelay implements AutoCloseable {

    /** A piece of one connection's traffic, or its end ({@code bytes == null}). */
    private record Chunk(long dueNanos, SocketChannel to, SocketChannel other, byte[] bytes) {
    }

    private final InetSocketAddress target;
    private final long delayNanos;
    private final ServerSocketChannel listener;
    private final Selector selector;
    private final LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    private final Thread reader;
    private final Thread writer;
    private volatile boolean closed;

    /**
     * Listens on a free loopback port and relays each connection to {@code host:port}.
     *
     * @param oneWay the delay added in each direction (half the added round trip)
     */
    DelayRelay(String host, int port, Duration oneWay) {
        if (oneWay.isNegative()) {
            throw new IllegalArgumentException("negative delay: " + oneWay);
        }
        this.target = new InetSocketAddress(host, port);
        this.delayNanos = oneWay.toNanos();
        try {
            this.selector = Selector.open();
            this.listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a relay to " + target, e);
        }
        this.reader = new Thread(this::readLoop, "delay-relay-read-" + port);
        this.writer = new Thread(this::writeLoop, "delay-relay-write-" + port);
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    int port() {
        return listener.socket().getLocalPort();
    }

    /** {@code redis://127.0.0.1:<relay port>}: the server's URI through the relay. */
    String uri() {
        return "redis://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    private void readLoop() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
        try {
            while (!closed) {
                selector.select();
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                    } else if (key.isReadable()) {
                        read(key, buffer);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                Main.log("relay to %s stopped reading: %s", target, e);
            }
        }
    }

    private void accept() throws IOException {
        SocketChannel client = listener.accept();
        if (client == null) {
            return;
        }
        SocketChannel server;
        try {
            server = SocketChannel.open(target);
        } catch (IOException e) {
            client.close();
            return;
        }
        for (SocketChannel channel : new SocketChannel[] {client, server}) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
        }
        client.register(selector, SelectionKey.OP_READ, server);
        server.register(selector, SelectionKey.OP_READ, client);
    }

    private void read(SelectionKey key, ByteBuffer buffer) {
        SocketChannel from = (SocketChannel) key.channel();
        SocketChannel to = (SocketChannel) key.attachment();
        long due = System.nanoTime() + delayNanos;
        int read;
        try {
            buffer.clear();
            read = from.read(buffer);
        } catch (IOException e) {
            read = -1;
        }
        if (read < 0) {
            key.cancel();
            queue.add(new Chunk(due, to, from, null));
        } else if (read > 0) {
            buffer.flip();
            byte[] bytes = new byte[read];
            buffer.get(bytes);
            queue.add(new Chunk(due, to, from, bytes));
        }
    }

    private void writeLoop() {
        try {
            while (!closed) {
                Chunk chunk = queue.poll(100, TimeUnit.MILLISECONDS);
                if (chunk == null) {
                    continue;
                }
                long wait;
                while ((wait = chunk.dueNanos() - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                deliver(chunk);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deliver(Chunk chunk) {
        SocketChannel to = chunk.to();
        if (chunk.bytes() == null) {
            closeQuietly(to);
            closeQuietly(chunk.other());
            return;
        }
        ByteBuffer bytes = ByteBuffer.wrap(chunk.bytes());
        try {
            while (bytes.hasRemaining()) {
                if (to.write(bytes) == 0) {
                    // the receiver's socket buffer is full: wait for it rather than drop bytes
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                }
            }
        } catch (IOException e) {
            closeQuietly(to);
            closeQuietly(chunk.other());
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing after a failure: nothing left to do
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        writer.interrupt();
        try {
            reader.join(TimeUnit.SECONDS.toMillis(5));
            writer.join(TimeUnit.SECONDS.toMillis(5));
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            selector.close();
            listener.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Parses a round trip as the command line gives it: a number and a unit, {@code us} (or
     * {@code µs}), {@code ms} or {@code s}: {@code 500us}, {@code 0.5ms}, {@code 2ms}.
     */
    static Duration parseRoundTrip(String text) {
        String trimmed = text.strip();
        for (String[] unit : new String[][] {{"us", "1000"}, {"µs", "1000"}, {"ms", "1000000"}, {"s", "1000000000"}}) {
            if (trimmed.endsWith(unit[0])) {
                String number = trimmed.substring(0, trimmed.length() - unit[0].length()).strip();
                try {
                    double nanos = Double.parseDouble(number) * Long.parseLong(unit[1]);
                    if (nanos >= 0 && nanos < TimeUnit.SECONDS.toNanos(10)) {
                        return Duration.ofNanos(Math.round(nanos));
                    }
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw new IllegalArgumentException("--rtt '" + text + "': give a round trip below 10 s as a number and a unit, "
                + "e.g. 500us, 0.5ms or 2ms");
    }

    @Override
    public String toString() {
        return "relay " + uri() + " -> " + target + " (+" + delayNanos / 1000 + " µs each way)";
    }
}
