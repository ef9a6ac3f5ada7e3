package dev.dlock.cli.store;

import dev.dlock.LockBackendException;
import dev.dlock.LockClient;
import dev.dlock.cli.common.Durations;
import dev.dlock.cli.common.Refusals;
import dev.dlock.cli.common.UsageException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Builds a client, trying again while Redis cannot be reached until a deadline: so that
 * {@code exec --wait 20s} started while Redis restarts waits for it like for the lock. The pause
 * between tries starts at 10 ms and doubles up to 1 s.
 */
public final class ConnectWithin {

    private static final long FIRST_PAUSE_MS = 10;
    private static final long MAX_PAUSE_MS = 1000;

    private ConnectWithin() {
    }

    /**
     * @param budget    how long to keep trying; zero: once
     * @param storeName what the locks live on, for the message: "Redis", "PostgreSQL"
     * @throws LockBackendException the store stayed unreachable for the whole budget; says so, with
     *                              the last failure as cause
     * @throws UsageException       Redis refused what no retry mends ({@link Refusals}): at once
     */
    public static LockClient connect(Supplier<LockClient> build, Duration budget, String storeName) {
        long start = System.nanoTime();
        long pauseMs = FIRST_PAUSE_MS;
        while (true) {
            try {
                return build.get();
            } catch (LockBackendException failure) {
                if (Refusals.isPermanent(failure)) {
                    throw new UsageException(failure.getMessage(), failure);
                }
                long leftMs = budget.toMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (budget.isZero() || leftMs <= 0) {
                    if (budget.isZero()) {
                        throw failure;
                    }
                    throw new LockBackendException(storeName + " unreachable for the whole wait of " + Durations.format(budget)
                            + "; last failure: " + failure.getMessage(), failure);
                }
                pause(Math.min(pauseMs, leftMs));
                pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2);
            }
        }
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException("interrupted while waiting for the store", e);
        }
    }
}
