package dev.dlock.cli.demo;

import dev.dlock.DistributedLock;
import dev.dlock.cli.DlockCommand;
import dev.dlock.cli.Durations;
import dev.dlock.cli.ExitCodes;
import dev.dlock.cli.UsageException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
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
    static final String KEY_PREFIX = "dlock-demo:";

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
            try (RedisForDemo redis = RedisForDemo.locate(dlock)) {
                out.println(redis.announcement());
                if (metrics.served()) {
                    out.println("metrics: serving " + metrics.url() + " (Prometheus text) while the demo runs");
                }
                out.flush();
                exitCode = report(sellInEachMode(redis.url(), metrics), metrics);
            }
            if (options.metricsLinger) {
                metrics.lingerUntilEnter(out);
            }
            return exitCode;
        }
    }

    private List<ModeResult> sellInEachMode(String url, DemoMetrics metrics) {
        RedisClient shopClient = RedisClient.create(url);
        List<AppServer> servers = List.of();
        try {
            servers = openServers(url, shopClient, metrics);
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
            shopClient.shutdown(Duration.ZERO, Duration.ofSeconds(1));
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

    private List<AppServer> openServers(String url, RedisClient shopClient, DemoMetrics metrics) {
        List<AppServer> servers = new ArrayList<>();
        try {
            for (int i = 1; i <= options.clients; i++) {
                String name = "flash-sale-app-" + i;
                servers.add(new AppServer(name,
                        dlock.clientBuilder(url).clientName(name).observer(metrics.observer()).build(), shopClient,
                        options.threads));
            }
            return servers;
        } catch (RedisException e) {
            servers.forEach(AppServer::close);
            throw new UsageException("cannot connect to Redis at " + RedisForDemo.withoutPassword(url) + ": "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            servers.forEach(AppServer::close);
            throw e;
        }
    }

    private ModeResult sell(Mode mode, List<AppServer> servers) {
        RedisCommands<String, String> admin = servers.get(0).redis();
        Shop shop = new Shop(KEY_PREFIX + runId + ":" + mode.label() + ":", options.pause);
        shop.stockUp(admin, options.stock);

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
        long orders = shop.orders(admin);
        if (options.keepData) {
            admin.expire(shop.ordersKey(), Shop.KEY_TTL);
            out.printf("  %s: kept %s and %s (expire in 10 minutes)%n", mode.label(), shop.stockKey(),
                    shop.ordersKey());
        } else {
            shop.delete(admin);
        }
        return new ModeResult(mode, options.stock, orders, served.get(), elapsed, lockWaits);
    }

    /** One buyer thread: takes the next buyer until every buyer has had a go. */
    private void buyers(Mode mode, AppServer server, Shop shop, AtomicInteger nextBuyer, AtomicInteger served,
                        AtomicInteger sold, long[] lockWaits) {
        RedisCommands<String, String> redis = server.redis();
        DistributedLock lock = server.locks().getLock(LOCK_NAME);
        for (int buyer = nextBuyer.getAndIncrement(); buyer < options.buyers; buyer = nextBuyer.getAndIncrement()) {
            String who = server.name() + "/buyer-" + buyer;
            boolean bought;
            if (mode == Mode.LOCK) {
                long asked = System.nanoTime();
                lock.lock();
                lockWaits[buyer] = System.nanoTime() - asked;
                try {
                    bought = shop.buy(redis, who);
                } finally {
                    lock.unlock();
                }
            } else {
                bought = shop.buy(redis, who);
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
