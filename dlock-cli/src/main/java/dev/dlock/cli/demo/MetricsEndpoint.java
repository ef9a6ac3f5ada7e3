package dev.dlock.cli.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dlock.cli.common.UsageException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A registry's meters as Prometheus text at {@code http://127.0.0.1:PORT/metrics}, served by the
 * JDK's own HTTP server on one daemon thread. Loopback only: the demo's meters are for a
 * Prometheus or a curl on the same machine, not for the network. A class of its own so that the
 * HTTP server's classes are loaded only when the demo serves its meters.
 */
final class MetricsEndpoint implements AutoCloseable {

    static final String PATH = "/metrics";
    /** The Prometheus text format, which every Prometheus version scrapes. */
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;
    private final PrometheusMeterRegistry registry;

    private MetricsEndpoint(HttpServer server, ExecutorService thread, PrometheusMeterRegistry registry) {
        this.server = server;
        this.thread = thread;
        this.registry = registry;
    }

    /**
     * Listens on 127.0.0.1:{@code port} (0: a free port) and serves {@code registry} at {@link #PATH}.
     *
     * @throws UsageException the port is in use or not ours to listen on, named in the message
     */
    static MetricsEndpoint serve(int port, PrometheusMeterRegistry registry) {
        InetAddress loopback;
        HttpServer server;
        try {
            loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
            server = HttpServer.create(new InetSocketAddress(loopback, port), 0);
        } catch (IOException e) {
            throw new UsageException("--metrics-port " + port + ": cannot listen on 127.0.0.1:" + port + ": "
                    + e.getMessage(), e);
        }
        ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread serving = new Thread(runnable, "dlock-demo-metrics");
            serving.setDaemon(true);
            return serving;
        });
        MetricsEndpoint endpoint = new MetricsEndpoint(server, thread, registry);
        server.createContext(PATH, endpoint::handle);
        server.setExecutor(thread);
        server.start();
        return endpoint;
    }

    /** Where the meters are: {@code http://127.0.0.1:PORT/metrics}, with the port actually bound. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + PATH;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String method = exchange.getRequestMethod();
            if (!exchange.getRequestURI().getPath().equals(PATH)) {
                exchange.sendResponseHeaders(404, -1);
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
            } else {
                byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                if (method.equals("HEAD")) {
                    exchange.sendResponseHeaders(200, -1);
                } else {
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream response = exchange.getResponseBody()) {
                        response.write(body);
                    }
                }
            }
        } finally {
            exchange.close();
        }
    }

    /** Stops listening at once; a scrape under way is cut off. */
    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
    }
}
