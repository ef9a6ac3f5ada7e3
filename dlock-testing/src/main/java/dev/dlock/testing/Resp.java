package dev.dlock.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Minimal RESP2 client: one command per fresh connection.
 *
 * <p>A fresh socket per call keeps the harness free of connection state, so a killed, paused or
 * restarted server can never leave a half-read reply behind for the next call.
 */
final class Resp {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

    private Resp() {}

    static Object call(String host, int port, Duration connectTimeout, Duration readTimeout, String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("empty command");
        }
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), toMillis(connectTimeout));
            socket.setSoTimeout(toMillis(readTimeout));
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Redis command " + args[0] + " to " + host + ":" + port + " failed: " + e.getMessage(), e);
        }
    }

    private static int toMillis(Duration d) {
        // 0 means "infinite" to java.net.Socket; never let a tiny duration turn into that.
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        writeAscii(buf, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buf, "$" + bytes.length + "\r\n");
            buf.writeBytes(bytes);
            writeAscii(buf, "\r\n");
        }
        return buf.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed before a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RedisReplyException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len);
                if (data.length != len || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("truncated bulk string");
                }
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(len);
                for (int i = 0; i < len; i++) {
                    try {
                        items.add(read(in));
                    } catch (RedisReplyException e) {
                        // An error nested in an array (e.g. inside EXEC) is data, not a failure of the call.
                        items.add(e);
                    }
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte '" + (char) type + "' followed by: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed in the middle of a reply");
            }
            if (b == '\r') {
                int next = in.read();
                if (next != '\n') {
                    throw new IOException("malformed RESP line ending");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }
}
