package dev.dlock.cli.demo;

import dev.dlock.LockObserver;
import dev.dlock.micrometer.DlockMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;

/**
 * The demo's dlock meters: every app server's {@code LockClient} records into one Prometheus
 * registry, kept in memory. The summary reads the lock waits from it, and with
 * {@code --metrics-port} a {@link MetricsEndpoint} serves it, so what the summary shows and what a
 * scrape shows are the same meters. Percentile histograms are on, as a Prometheus user would have
 * them for {@code histogram_quantile}, and the summary estimates its percentiles from them.
 */
final class DemoMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final DlockMetrics observer = DlockMetrics.builder(registry).percentileHistograms(true).build();
    private MetricsEndpoint endpoint;

    private DemoMetrics() {
    }

    /**
     * The meters, served on {@code port} when one is given.
     *
     * @param port 0 to 65535 (0: a free port), or null not to serve them
     * @throws dev.dlock.cli.UsageException the port cannot be listened on
     */
    static DemoMetrics start(Integer port) {
        DemoMetrics metrics = new DemoMetrics();
        if (port != null) {
            try {
                metrics.endpoint = MetricsEndpoint.serve(port, metrics.registry);
            } catch (RuntimeException e) {
                metrics.close();
                throw e;
            }
        }
        return metrics;
    }

    /** For {@code LockClientBuilder.observer}: one for every client, their meters add up. */
    LockObserver observer() {
        return observer;
    }

    /** Whether the meters are served; then {@link #url()} says where. */
    boolean served() {
        return endpoint != null;
    }

    String url() {
        return endpoint.url();
    }

    /**
     * Keeps the meters served until a line is read from stdin; with nothing to read (stdin at its
     * end, as from /dev/null or under nohup), until the process is ended (Ctrl-C, SIGTERM), which
     * then exits as a signal makes it. Returns at once when they are not served.
     */
    void lingerUntilEnter(PrintWriter out) {
        if (endpoint == null) {
            return;
        }
        out.println("metrics: still serving " + url() + "; Enter (or Ctrl-C) stops it");
        out.flush();
        if (!lineRead()) {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Reads stdin to a line's end: true; false at its end, or when it cannot be read. */
    private static boolean lineRead() {
        try {
            int read;
            do {
                read = System.in.read();
            } while (read != '\n' && read != -1);
            return read == '\n';
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Every {@code dlock.acquire.wait} timer that recorded an acquisition, one per kind and outcome
     * seen (those alerts read are there from the start, at zero).
     */
    Collection<Timer> acquireWaits() {
        return registry.find(DlockMetrics.ACQUIRE_WAIT).timers().stream().filter(timer -> timer.count() > 0).toList();
    }

    @Override
    public void close() {
        try {
            if (endpoint != null) {
                endpoint.close();
            }
        } finally {
            registry.close();
        }
    }
}
