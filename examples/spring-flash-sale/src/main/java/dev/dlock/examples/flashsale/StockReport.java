package dev.dlock.examples.flashsale;

import dev.dlock.spring.WithLock;
import dev.dlock.spring.WithLock.OnBusy;
import dev.dlock.spring.WithLock.OnOutage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that must run on one instance at a time: the others skip the tick. When Redis is
 * down the tick is skipped too (one WARN for the whole outage, a count when Redis is back), since the
 * next tick is the retry; {@code onOutage = THROW} would have the scheduler log each failure.
 * {@code holdAtLeast} keeps an instance whose schedule is a little behind from reporting again.
 */
@Component
public class StockReport {
    private static final Logger log = LoggerFactory.getLogger(StockReport.class);
    private final Stock stock;

    public StockReport(Stock stock) {
        this.stock = stock;
    }

    @Scheduled(fixedDelayString = "${shop.report-every:60s}", initialDelayString = "${shop.report-every:60s}")
    @WithLock(name = "stock-report", onBusy = OnBusy.SKIP, onOutage = OnOutage.SKIP, holdAtLeast = "10s")
    public void report() {
        log.info("phone-x: {} left, {} sold", stock.remaining("phone-x"), stock.sold("phone-x"));
    }
}
