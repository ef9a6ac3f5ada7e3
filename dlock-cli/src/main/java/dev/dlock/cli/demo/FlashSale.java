package dev.dlock.cli.demo;

import dev.dlock.DistributedLock;
import dev.dlock.LockClient;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The seed scenario: a few units of stock, many buyers on several app servers at once. Without
 * the lock, buyers who read the same stock all sell a unit and the shop oversells; with a lock per
 * item, every buyer checks and updates the stock alone and exactly the stock is sold.
 */
final class FlashSale {

    static final String ITEM = "phone";
    static final String LOCK_NAME = "flash-sale:" + ITEM;

    private final FlashSaleOptions options;
    private final DlockCommand dlock;
    private final PrintWriter out;
    private final PrintWriter err;
    private final String runId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

    FlashSale(FlashSaleOptions options, DlockCommand dlock, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.dlock = dlock;
        this.out = out;
        this.err = err;
    }

    /** Runs the sale in each mode asked for; {@link ExitCodes#FAILED} when the lock did not hold. */
    int run() {
        options.validate();
        // the port first: when it cannot be had, nothing else is started
        try (DemoMetrics metrics = DemoMetrics.start(options.metricsPort)) {
            int exitCode;
            try (DemoStore store = locateStore()) {
                out.println(store.announcement());
                if (metrics.served()) {
                    out.println("metrics: serving " + metrics.url() + " (Prometheus text) while the demo runs");
                }
                out.flush();
                exitCode = report(sellInEachMode(store, metrics), metrics);
            }
            if (options.metricsLinger) {
                metrics.lingerUntilEnter(out);
            }
            return exitCode;
        }
    }

    /** ZooKeeper or PostgreSQL when named ({@code --zookeeper}, {@code --postgres}, or their variables), else a Redis ({@link RedisForDemo}). */
    private DemoStore locateStore() {
        String[] zookeeper = dlock.explicitZooKeeper();
        if (zookeeper != null) {
            return ZooKeeperForDemo.connect(zookeeper[0], zookeeper[1]);
        }
        DlockCommand.PostgresSource postgres = dlock.explicitPostgres();
        return postgres != null ? PostgresForDemo.connect(postgres) : RedisForDemo.locate(dlock);
    }

    private List<ModeResult> sellInEachMode(DemoStore store, DemoMetrics metrics) {
        List<AppServer> servers = List.of();
        try {
            servers = openServers(store, metrics);
            out.printf("flash sale: %,d %ss in stock, %,d buyers on %d app servers (LockClients) x %d threads%n",
                    options.stock, ITEM, options.buyers, options.clients, options.threads);
            out.printf("a purchase reads the stock, checks it, pauses %s, writes it back minus one and "
                    + "records the order%n", Durations.format(options.pause));
            if (ProgressBar.isShown()) {
                out.println();
            }
            out.flush();
            List<ModeResult> results = new ArrayList<>();
            for (Mode mode : options.mode.runs()) {
                results.add(sell(mode, servers));
            }
            return results;
        } finally {
            servers.forEach(AppServer::close);
        }
    }

    private int report(List<ModeResult> results, DemoMetrics metrics) {
        out.println();
        out.print(ResultTable.render(results));
        out.println();
        String lockWaits = LockWaitTable.render(metrics.acquireWaits());
        if (!lockWaits.isEmpty()) {
            out.print(lockWaits);
            out.println();
        }
        boolean lockHeld = true;
        for (ModeResult result : results) {
            out.println(verdict(result));
            lockHeld &= result.mode() != Mode.LOCK || result.sold() == expectedWithLock();
        }
        out.flush();
        return lockHeld ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private List<AppServer> openServers(DemoStore store, DemoMetrics metrics) {
        List<AppServer> servers = new ArrayList<>();
        try {
            for (int i = 1; i <= options.clients; i++) {
                String name = "flash-sale-app-" + i;
                LockClient locks = store.lockClient(dlock).clientName(name).observer(metrics.observer()).build();
                try {
                    servers.add(new AppServer(name, locks, store.openStockroom(), options.threads));
                } catch (RuntimeException e) {
                    locks.close();
                    throw e;
                }
            }
            return servers;
        } catch (RuntimeException e) {
            servers.forEach(AppServer::close);
            throw store.connectFailure(e);
        }
    }

    private ModeResult sell(Mode mode, List<AppServer> servers) {
        Stockroom admin = servers.get(0).stockroom();
        Shop shop = new Shop(runId + ":" + mode.label(), options.pause);
        admin.stockUp(shop.sale(), options.stock);

        AtomicInteger nextBuyer = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        AtomicInteger sold = new AtomicInteger();
        long[] lockWaits = new long[mode == Mode.LOCK ? options.buyers : 0];
        long start = System.nanoTime();
        try (ProgressBar bar = ProgressBar.start(err, mode.label(), options.buyers, served, sold)) {
            List<Future<?>> workers = new ArrayList<>();
            for (AppServer server : servers) {
                for (int t = 0; t < options.threads; t++) {
                    workers.add(server.threads().submit(() ->
                            buyers(mode, server, shop, nextBuyer, served, sold, lockWaits)));
                }
            }
            awaitAll(workers, nextBuyer);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        long orders = admin.orders(shop.sale());
        if (options.keepData) {
            out.printf("  %s: %s%n", mode.label(), admin.keep(shop.sale()));
        } else {
            admin.delete(shop.sale());
        }
        return new ModeResult(mode, options.stock, orders, served.get(), elapsed, lockWaits);
    }

    /** One buyer thread: takes the next buyer until every buyer has had a go. */
    private void buyers(Mode mode, AppServer server, Shop shop, AtomicInteger nextBuyer, AtomicInteger served,
                        AtomicInteger sold, long[] lockWaits) {
        Stockroom room = server.stockroom();
        DistributedLock lock = server.locks().getLock(LOCK_NAME);
        for (int buyer = nextBuyer.getAndIncrement(); buyer < options.buyers; buyer = nextBuyer.getAndIncrement()) {
            String who = server.name() + "/buyer-" + buyer;
            boolean bought;
            if (mode == Mode.LOCK) {
                long asked = System.nanoTime();
                lock.lock();
                lockWaits[buyer] = System.nanoTime() - asked;
                try {
                    bought = shop.buy(room, who);
                } finally {
                    lock.unlock();
                }
            } else {
                bought = shop.buy(room, who);
            }
            if (bought) {
                sold.incrementAndGet();
            }
            served.incrementAndGet();
        }
    }

    /** Waits for every worker; on the first failure stops handing out buyers and rethrows it. */
    private void awaitAll(List<Future<?>> workers, AtomicInteger nextBuyer) {
        RuntimeException failure = null;
        for (Future<?> worker : workers) {
            try {
                worker.get();
            } catch (ExecutionException e) {
                nextBuyer.set(Integer.MAX_VALUE / 2);
                if (failure == null) {
                    failure = e.getCause() instanceof RuntimeException runtime ? runtime
                            : new IllegalStateException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                nextBuyer.set(Integer.MAX_VALUE / 2);
                throw new IllegalStateException("interrupted while the sale ran", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private long expectedWithLock() {
        return Math.min(options.stock, options.buyers);
    }

    private String verdict(ModeResult result) {
        String sold = "sold " + ResultTable.count(result.sold()) + " of " + ResultTable.count(result.stock()) + " "
                + ITEM + "s";
        if (result.mode() == Mode.NOLOCK) {
            return result.oversold() > 0
                    ? "nolock: " + sold + ", oversold by " + ResultTable.count(result.oversold())
                            + " (buyers read the same stock, each wrote back the same count)"
                    : "nolock: " + sold + ", no oversell this time (the race needs the timing: run again)";
        }
        return result.sold() == expectedWithLock()
                ? "lock:   " + sold + ", exactly the stock (each buyer checked it alone, under lock '" + LOCK_NAME + "')"
                : "lock:   " + sold + ", expected exactly " + expectedWithLock() + ": THE LOCK DID NOT HOLD";
    }
}
