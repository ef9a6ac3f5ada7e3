package dev.dlock.cli.demo;

import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.UsageException;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The flash sale's knobs, shared by {@code dlock demo} and {@code dlock demo flash-sale}. */
public final class FlashSaleOptions {

    @Option(names = "--stock", paramLabel = "N", defaultValue = "10",
            description = "Units for sale (default: ${DEFAULT-VALUE}).")
    int stock;

    @Option(names = "--buyers", paramLabel = "N", defaultValue = "10000",
            description = "Buyers, each trying to buy one unit (default: ${DEFAULT-VALUE}).")
    int buyers;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "4",
            description = "LockClients, each standing for an app server with its own connections "
                    + "(default: ${DEFAULT-VALUE}).")
    int clients;

    // More threads make no faster sale with the lock (buyers queue for one lock per item, and every
    // release wakes every waiter): 2 per client keeps the default run near ten seconds on 2 cores.
    @Option(names = "--threads", paramLabel = "N", defaultValue = "2",
            description = "Buyer threads per client (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "both",
            description = "both, lock or nolock (default: ${DEFAULT-VALUE}: nolock, then lock).")
    Mode mode;

    @Option(names = "--pause", paramLabel = "DURATION", defaultValue = "1ms", converter = Durations.class,
            description = "Pause between reading the stock and writing it back, as an app that reads a row, "
                    + "thinks, and writes it back (default: ${DEFAULT-VALUE}).")
    Duration pause;

    @Option(names = "--keep-data",
            description = "Leave the stock and orders for inspection: Redis keys that expire in 10 minutes; on PostgreSQL "
                    + "rows that the next run deletes once they are 10 minutes old.")
    boolean keepData;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = {"Serve the demo's dlock meters as Prometheus text on http://127.0.0.1:PORT/metrics "
                    + "while it runs (0: a free port, printed).",
                    "Without it the meters are still recorded, for the summary."})
    Integer metricsPort;

    @Option(names = "--metrics-linger",
            description = "With --metrics-port: after the sale, keep serving until Enter (with no input to "
                    + "read, until Ctrl-C or SIGTERM).")
    boolean metricsLinger;

    void validate() {
        positive("--stock", stock, 1_000_000);
        positive("--buyers", buyers, 10_000_000);
        positive("--clients", clients, 64);
        positive("--threads", threads, 256);
        if (pause.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new UsageException("--pause: at most 1s, got " + Durations.format(pause));
        }
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65_535)) {
            throw new UsageException("--metrics-port: a port from 0 to 65535 (0: any free one), got " + metricsPort);
        }
        if (metricsLinger && metricsPort == null) {
            throw new UsageException("--metrics-linger needs --metrics-port: without it nothing is served");
        }
    }

    private static void positive(String option, int value, int max) {
        if (value < 1 || value > max) {
            throw new UsageException(option + ": between 1 and " + max + ", got " + value);
        }
    }
}
