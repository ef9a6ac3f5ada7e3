package dev.dlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The --rtt relay: bytes pass unchanged both ways, late by at least the configured round trip. */
class DelayRelayTest {

    private static final Duration ONE_WAY = Duration.ofMillis(20);

    @Test
    void bytesPassUnchangedBothWaysAndEachRoundTripTakesAtLeastTheConfiguredDelay() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             DelayRelay relay = new DelayRelay(InetAddress.getLoopbackAddress().getHostAddress(), echo.getLocalPort(), ONE_WAY)) {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> echoOnce(echo));
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), relay.port())) {
                client.setSoTimeout((int) TimeUnit.SECONDS.toMillis(30));
                OutputStream out = client.getOutputStream();
                InputStream in = client.getInputStream();

                byte[] sent = new byte[3 * 1024 * 1024 + 17];
                new Random(42).nextBytes(sent);
                CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> write(out, sent));
                byte[] received = in.readNBytes(sent.length);
                writing.get(30, TimeUnit.SECONDS);
                assertThat(received).isEqualTo(sent);

                for (int i = 0; i < 5; i++) {
                    long start = System.nanoTime();
                    out.write(i);
                    out.flush();
                    assertThat(in.read()).isEqualTo(i);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(ONE_WAY.multipliedBy(2));
                }
            }
            server.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void roundTripsAreReadWithTheirUnit() {
        assertThat(DelayRelay.parseRoundTrip("500us")).isEqualTo(Duration.ofNanos(500_000));
        assertThat(DelayRelay.parseRoundTrip("500µs")).isEqualTo(Duration.ofNanos(500_000));
        assertThat(DelayRelay.parseRoundTrip("0.5ms")).isEqualTo(Duration.ofNanos(500_000));
        assertThat(DelayRelay.parseRoundTrip("2ms")).isEqualTo(Duration.ofMillis(2));
        assertThatThrownBy(() -> DelayRelay.parseRoundTrip("500")).hasMessageContaining("'500'");
        assertThatThrownBy(() -> DelayRelay.parseRoundTrip("-1ms")).hasMessageContaining("'-1ms'");
    }

    /** Echoes one connection until the other side closes it. */
    private static void echoOnce(ServerSocket echo) {
        try (Socket socket = echo.accept()) {
            socket.getInputStream().transferTo(socket.getOutputStream());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(OutputStream out, byte[] bytes) {
        try {
            for (int at = 0; at < bytes.length; at += 8192) {
                out.write(bytes, at, Math.min(8192, bytes.length - at));
            }
            out.flush();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
