package dev.dlock.examples.flashsale;

import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The stock table, updated the naive way: read what is left, then write what is left minus one.
 * Two buyers between the read and the write both buy the same phone; only a lock around the
 * whole purchase keeps the count right.
 */
@Repository
public class Stock {
    private final JdbcTemplate jdbc;
    private final Duration paymentCheck;

    public Stock(JdbcTemplate jdbc, @Value("${shop.payment-check:0ms}") Duration paymentCheck) {
        this.jdbc = jdbc;
        this.paymentCheck = paymentCheck;
    }

    /** Sells one unit to the buyer if any is left; true when sold. */
    public boolean sellOne(String sku, String buyer) {
        Integer left = jdbc.queryForObject("select remaining from stock where sku = ?", Integer.class, sku);
        if (left == null || left <= 0) {
            return false;
        }
        checkPayment();
        jdbc.update("update stock set remaining = ? where sku = ?", left - 1, sku);
        jdbc.update("insert into orders (sku, buyer) values (?, ?)", sku, buyer);
        return true;
    }

    /** The payment provider's answer takes a moment (the shop.payment-check property). */
    private void checkPayment() {
        if (!paymentCheck.isZero()) {
            try {
                Thread.sleep(paymentCheck.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public int remaining(String sku) {
        return jdbc.queryForObject("select remaining from stock where sku = ?", Integer.class, sku);
    }

    public int sold(String sku) {
        return jdbc.queryForObject("select count(*) from orders where sku = ?", Integer.class, sku);
    }

    /** Puts the stock back to {@code units} and forgets the orders. */
    public void restock(String sku, int units) {
        jdbc.update("delete from orders where sku = ?", sku);
        // plain SQL that H2 and PostgreSQL both run
        if (jdbc.update("update stock set remaining = ? where sku = ?", units, sku) == 0) {
            jdbc.update("insert into stock (sku, remaining) values (?, ?)", sku, units);
        }
    }
}
