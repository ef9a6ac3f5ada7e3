package dev.dlock.examples.flashsale;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A shop selling a few phones to many buyers at once. {@code POST /phones/{sku}/purchase} is
 * guarded by {@code @WithLock} and sells exactly the stock; {@code POST
 * /unlocked/phones/{sku}/purchase} runs the same code without the lock and oversells.
 */
@SpringBootApplication
@EnableScheduling
public class FlashSaleApplication {

    public static void main(String[] args) {
        SpringApplication.run(FlashSaleApplication.class, args);
    }
}
