package dev.dlock.internal.acquire;

import dev.dlock.internal.settings.Ticker;

/** When an acquisition stops waiting, on the client's clock; or never, for a wait without bound. */
final class Deadline {

    private final Ticker ticker;
    private final long atNanos;
    private final boolean unbounded;

    /** @param waitNanos how long to wait from now; negative: without bound */
    Deadline(Ticker ticker, long waitNanos) {
        this.ticker = ticker;
        this.unbounded = waitNanos < 0;
        this.atNanos = ticker.nanoTime() + Math.max(0, waitNanos);
    }

    boolean unbounded() {
        return unbounded;
    }

    /** The time left, in nanos; negative once it passed (meaningless without bound). */
    long remainingNanos() {
        return atNanos - ticker.nanoTime();
    }

    boolean passed() {
        return !unbounded && remainingNanos() <= 0;
    }

    /** {@code nanos}, or the time left when that is shorter. */
    long cap(long nanos) {
        return unbounded ? nanos : Math.min(nanos, remainingNanos());
    }
}
