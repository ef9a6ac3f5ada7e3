package dev.dlock.cli.demo;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * One item's sale, bought the way many apps do it: read the stock, check it, think a moment, write
 * it back, record the order. Nothing here is atomic; only the lock makes it correct.
 */
final class Shop {

    private final String sale;
    private final Duration pause;

    /** @param sale e.g. {@code 4f2a:lock}: the run and the mode */
    Shop(String sale, Duration pause) {
        this.sale = sale;
        this.pause = pause;
    }

    String sale() {
        return sale;
    }

    /**
     * One purchase attempt. Two buyers who read the same stock both sell a unit and both write the
     * same new stock back: the race the lock is there to prevent.
     *
     * @return whether the buyer got a unit
     */
    boolean buy(Stockroom room, String buyer) {
        int left = room.stock(sale);
        if (left <= 0) {
            return false;
        }
        if (!pause.isZero()) {
            LockSupport.parkNanos(pause.toNanos());
        }
        room.writeStock(sale, left - 1);
        room.recordOrder(sale, buyer);
        return true;
    }
}
