package dev.dlock.cli.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Asks a host:port whether a Redis answers there, with a raw RESP PING and a short timeout. */
final class RedisProbe {

    private RedisProbe() {
    }

    static boolean answersPing(String host, int port, Duration timeout) {
        try (Socket socket = new Socket()) {
            int millis = (int) timeout.toMillis();
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            int read = 0;
            while (read < reply.length) {
                int n = in.read(reply, read, reply.length - read);
                if (n < 0) {
                    break;
                }
                read += n;
            }
            // a Redis that wants a password answers -NOAUTH: it is there, but not usable without one
            return new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }
}
