package dev.dlock.internal.acquire;

import dev.dlock.internal.settings.Settings;
import dev.dlock.internal.store.AcquireReply;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** How long a refused waiter waits, at most, before it asks again (a release message may wake it sooner). */
public final class RetryDelay {

    private RetryDelay() {
    }

    /**
     * @param inQueue        the waiter has a place in a queue in the store, which lapses unless it asks
     *                       again within the waiter timeout
     * @param remainingNanos the time left until the caller's deadline; negative {@code unbounded}: none
     */
    public static long nanos(AcquireReply.Busy busy, boolean inQueue, Settings settings, boolean unbounded, long remainingNanos) {
        long waitNanos;
        if (busy.split()) {
            // contenders split the Redlock nodes and all gave back: retrying in step would split again
            waitNanos = TimeUnit.MILLISECONDS.toNanos(1 + ThreadLocalRandom.current().nextLong(settings.splitBackoffMs()));
        } else if (busy.retryAfterMs() >= 0) {
            // a key at 0 ms still exists for up to a millisecond
            waitNanos = TimeUnit.MILLISECONDS.toNanos(busy.retryAfterMs() + 1);
        } else {
            // no TTL on the key: not one of ours; a release message still wakes the waiter
            waitNanos = settings.idleRetry().toNanos();
        }
        if (inQueue) {
            // ask again well before the waiter timeout, or the store takes this waiter for dead
            waitNanos = Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(settings.waiterRefreshMs()));
        }
        return unbounded ? waitNanos : Math.min(waitNanos, remainingNanos);
    }
}
