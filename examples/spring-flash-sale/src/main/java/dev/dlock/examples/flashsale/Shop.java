package dev.dlock.examples.flashsale;

import dev.dlock.spring.WithLock;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Purchases: one phone model at a time under its lock, or without a lock to show the race. */
@Service
public class Shop {
    private final Stock stock;

    public Shop(Stock stock) {
        this.stock = stock;
    }

    /**
     * Sells one phone if any is left. The lock (one per model) is taken before the transaction
     * begins and released after it committed, so the next buyer reads the stock this one wrote.
     */
    @WithLock(key = "'phone:' + #sku", waitTime = "30s")
    @Transactional
    public boolean buy(String sku, String buyer) {
        return stock.sellOne(sku, buyer);
    }

    /** The same purchase without the lock: buyers who read the stock at once all buy. */
    public boolean buyWithoutLock(String sku, String buyer) {
        return stock.sellOne(sku, buyer);
    }
}
