package dev.dlock.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports, found by binding port 0 and releasing it at once. */
final class FreePorts {

    private FreePorts() {
    }

    /**
     * @return a port that was free a moment ago on {@code 127.0.0.1}; another process may take it
     *     before the caller binds it, so callers retry with a new port when binding fails
     */
    static int next() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RedisServer.HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
